// Fuzzes the editable lesson: a LessonState whose sizes and cells come from the bytes goes through
// evaluate_lesson(), which must answer with evidence or one field error, never crash; with the cells kept
// from larger sizes as well, so that growing back after shrinking is fuzzed too.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "learner/editable_state.hpp"

namespace {

// Mostly what a learner types (a digit, a short decimal), sometimes anything at all: random text alone
// would almost never get past the size fields.
std::string typed(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0:
      return std::to_string(in.ConsumeIntegralInRange(0, 9));
    case 1: {
      const char* numbers[] = {"0", "-1.5", "2e-3", ".5", "1e308", "-0", "3", "1e-320", "7.25"};
      return numbers[in.ConsumeIntegralInRange(0, 8)];
    }
    default:
      return in.ConsumeRandomLengthString(24);
  }
}

// Mostly an extent the sizes allow, sometimes any at all: a kept shape of [1e9, 1, 1] once stopped the core.
qkv::Extent extent(FuzzedDataProvider& in) {
  if (in.ConsumeIntegralInRange(0, 7) != 0) return in.ConsumeIntegralInRange<qkv::Extent>(0, 9);
  return in.ConsumeIntegral<qkv::Extent>();
}

qkv::EditableTensor tensor(FuzzedDataProvider& in) {
  qkv::EditableTensor out;
  const int rank = in.ConsumeIntegralInRange(0, 4);
  for (int i = 0; i < rank; ++i) out.shape.push_back(extent(in));
  const int cells = in.ConsumeIntegralInRange(0, 40);
  for (int i = 0; i < cells; ++i) out.cells.push_back(typed(in));
  const int kept_rank = in.ConsumeIntegralInRange(0, 4);
  for (int i = 0; i < kept_rank; ++i) out.kept.shape.push_back(extent(in));
  const int kept_cells = in.ConsumeIntegralInRange(0, 40);
  for (int i = 0; i < kept_cells; ++i) out.kept.cells.push_back(typed(in));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  qkv::LessonState state;
  for (std::string* field : {&state.batch, &state.tokens, &state.model_width, &state.head_width})
    *field = typed(in);
  for (qkv::EditableTensor* field :
       {&state.input, &state.query_weight, &state.key_weight, &state.value_weight, &state.query_upstream,
        &state.key_upstream, &state.value_upstream})
    *field = tensor(in);
  const qkv::LessonEvaluation result = qkv::evaluate_lesson(state);
  // Exactly one of evidence and error.
  if (result.evidence.has_value() == result.error.has_value()) __builtin_trap();
  return 0;
}
