// Every described type's field list, under the type's C++ name, with each field's type in TypeScript's
// words: {"TensorView": {"shape": "number[]", "shape_text": "string", ...}, ...}; "?" marks an optional
// field. `qkv-lesson fields` prints it, and tests/node/core-api-fields.test.mjs holds the hand-written
// web/src/lesson/core-api.d.ts to it.
#pragma once

#include <string>
#include <type_traits>

#include "bench/core_bench.hpp"
#include "cli/json_fields.hpp"

namespace qkv::cli {

// The name each described type is listed under. A field whose type has no name here does not compile, so
// every type a listed type holds is listed too.
template <class T>
struct described_name;
#define QKV_DESCRIBED(type)                     \
  template <>                                   \
  struct described_name<type> {                 \
    static constexpr const char* value = #type; \
  };
using namespace qkv::api;  // the types below are api's, but for the learner's four (EditableCells, ...)
QKV_DESCRIBED(ErrorView)
QKV_DESCRIBED(TensorView)
QKV_DESCRIBED(NumberView)
QKV_DESCRIBED(RoundedView)
QKV_DESCRIBED(ShapeProbeView)
QKV_DESCRIBED(RejectionView)
QKV_DESCRIBED(GradcheckRules)
QKV_DESCRIBED(BitwiseChecks)
QKV_DESCRIBED(GradcheckView)
QKV_DESCRIBED(ValuePreviewView)
QKV_DESCRIBED(EvidenceView)
QKV_DESCRIBED(SizeLimitView)
QKV_DESCRIBED(EditableCells)
QKV_DESCRIBED(EditableTensor)
QKV_DESCRIBED(LessonState)
QKV_DESCRIBED(FixtureResponse)
QKV_DESCRIBED(LessonResponse)
QKV_DESCRIBED(ChecksResponse)
QKV_DESCRIBED(ProvenanceRequest)
QKV_DESCRIBED(SourceCells)
QKV_DESCRIBED(ProvenanceResponse)
QKV_DESCRIBED(ExperimentFacts)
QKV_DESCRIBED(SelfScoreRequest)
QKV_DESCRIBED(ScoreSummaryView)
QKV_DESCRIBED(SelfScoreView)
QKV_DESCRIBED(SelfScoreResponse)
QKV_DESCRIBED(OffDiagonalRowView)
QKV_DESCRIBED(KindSummaryView)
QKV_DESCRIBED(SelfScoreSummaryView)
QKV_DESCRIBED(SelfScoreSummaryResponse)
QKV_DESCRIBED(SeedSearchRequest)
QKV_DESCRIBED(SeedSearchResponse)
QKV_DESCRIBED(ExerciseView)
QKV_DESCRIBED(ExercisesResponse)
QKV_DESCRIBED(AnswerRequest)
QKV_DESCRIBED(AnswerResponse)
QKV_DESCRIBED(QuestionStandingView)
QKV_DESCRIBED(OutcomeRequest)
QKV_DESCRIBED(OutcomeResponse)
QKV_DESCRIBED(RandnRequest)
QKV_DESCRIBED(RandnResponse)
QKV_DESCRIBED(TextResponse)
QKV_DESCRIBED(TensorData)
QKV_DESCRIBED(GradcheckData)
QKV_DESCRIBED(ProjectionResponse)
QKV_DESCRIBED(UpstreamData)
QKV_DESCRIBED(EvidenceRequest)
QKV_DESCRIBED(BenchRequest)
QKV_DESCRIBED(BenchResponse)
#undef QKV_DESCRIBED

template <class T>
std::string field_type() {
  if constexpr (std::is_same_v<T, bool>) {
    return "boolean";
  } else if constexpr (std::is_arithmetic_v<T>) {
    return "number";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "string";
  } else if constexpr (is_optional<T>::value) {
    return field_type<typename T::value_type>() + "?";
  } else if constexpr (api::is_vector<T>::value) {
    return field_type<typename T::value_type>() + "[]";
  } else {
    return described_name<T>::value;
  }
}

struct FieldTypes {
  ordered_json& out;
  template <class T>
  void operator()(const char* key, const T&) {
    out[key] = field_type<T>();
  }
};

template <class T>
void add_field_list(ordered_json& out) {
  ordered_json fields = ordered_json::object();
  FieldTypes visitor{fields};
  describe(visitor, T{});
  out[described_name<T>::value] = fields;
}

template <class... T>
ordered_json field_lists_of() {
  ordered_json out = ordered_json::object();
  (add_field_list<T>(out), ...);
  return out;
}

inline ordered_json field_lists() {
  return field_lists_of<ErrorView, TensorView, NumberView, RoundedView, ShapeProbeView, RejectionView,
                        GradcheckRules, BitwiseChecks, GradcheckView, ValuePreviewView, EvidenceView,
                        SizeLimitView, EditableCells, EditableTensor, LessonState, FixtureResponse,
                        LessonResponse, ProvenanceRequest, SourceCells, ProvenanceResponse, ExperimentFacts,
                        SelfScoreRequest, ScoreSummaryView, SelfScoreView, SelfScoreResponse,
                        OffDiagonalRowView, KindSummaryView, SelfScoreSummaryView, SelfScoreSummaryResponse,
                        SeedSearchRequest, SeedSearchResponse, ExerciseView, ExercisesResponse, AnswerRequest,
                        AnswerResponse, QuestionStandingView, OutcomeRequest, OutcomeResponse, RandnRequest,
                        RandnResponse, TextResponse, TensorData, GradcheckData, ProjectionResponse,
                        UpstreamData, EvidenceRequest, BenchRequest, BenchResponse>();
}

}  // namespace qkv::cli
