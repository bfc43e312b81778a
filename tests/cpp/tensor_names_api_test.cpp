// The table of tensor names (response/tensor_names.hpp) against the field lists the page reads and writes:
// every tensor is a field of the evidence, and the learner's state is exactly the table's state tensors.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <type_traits>

#include "api/lesson_api.hpp"
#include "response/tensor_names.hpp"

namespace qkv::api {
namespace {

// The names describe() lists, and those of its fields that hold a learner's tensor.
struct FieldNames {
  std::set<std::string> all, editable;
  template <class T>
  void operator()(const char* key, const T&) {
    all.insert(key);
    if constexpr (std::is_same_v<T, EditableTensor>) editable.insert(key);
  }
};

TEST(TensorNamesApi, EveryTensorIsAFieldOfTheEvidenceThePageReads) {
  FieldNames evidence;
  describe(evidence, EvidenceView{});
  for (const TensorName& name : kTensorNames) EXPECT_EQ(evidence.all.count(name.key), 1u) << name.key;
}

TEST(TensorNamesApi, TheLearnersStateHoldsExactlyTheStateTensors) {
  FieldNames state;
  describe(state, LessonState{});
  std::set<std::string> expected;
  for (const TensorName& name : kTensorNames)
    if (is_state(name.role)) expected.insert(name.key);
  EXPECT_EQ(state.editable, expected);
}

}  // namespace
}  // namespace qkv::api
