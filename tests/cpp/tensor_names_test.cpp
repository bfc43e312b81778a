// The one table of the lesson's tensor names: each key and label once, every role and branch found, the
// state's tensors first, and the keys the chapter's fixture (fixtures/chapter26.json) uses for the same
// tensors.
#include "response/tensor_names.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "fixture.hpp"

namespace qkv {
namespace {

TEST(TensorNames, EveryKeyAndLabelOnceAndEveryRoleAndBranchFindsItsOwnEntry) {
  std::set<std::string> keys, labels;
  for (const TensorName& name : kTensorNames) {
    EXPECT_TRUE(keys.insert(name.key).second) << name.key;
    EXPECT_TRUE(labels.insert(name.label).second) << name.label;
    EXPECT_EQ(&kTensorNames[first_of(name.role) + name.branch], &name) << name.key;
  }
  EXPECT_EQ(keys.size(), 15u);  // X, three weights, three upstreams, Q, K, V, S, X̄, three weight gradients
}

// The order the lesson reads and checks the learner's tensors in (learner/editable_state.cpp), with the
// page's labels (the diagram's table captions; W̄ written with U+0304, a combining macron).
TEST(TensorNames, TheStateComesFirstInTheLessonsOrder) {
  std::vector<std::string> state, state_labels;
  bool state_over = false;
  for (const TensorName& name : kTensorNames) {
    if (!is_state(name.role)) {
      state_over = true;
      continue;
    }
    EXPECT_FALSE(state_over) << name.key << " comes after a computed tensor";
    state.push_back(name.key);
    state_labels.push_back(name.label);
  }
  EXPECT_EQ(state, (std::vector<std::string>{"input", "query_weight", "key_weight", "value_weight",
                                             "query_upstream", "key_upstream", "value_upstream"}));
  EXPECT_EQ(state_labels, (std::vector<std::string>{"X", "W_Q", "W_K", "W_V", "U_Q", "U_K", "U_V"}));
  EXPECT_STREQ(tensor_name<TensorRole::Weight>(1).label, "W_K");
  EXPECT_STREQ(tensor_name<TensorRole::WeightGradient>(1).label, "W\u0304_K");
  EXPECT_STREQ(tensor_name<TensorRole::InputGradient>().label, "X\u0304");
}

// The fixture was typed in from the Rust course's spec, not from this table: its request names X and the
// weights, its `upstream` the three branches' upstreams (query, key, value), its `expected` every computed
// tensor.
TEST(TensorNames, TheKeysAreTheChapterFixturesNames) {
  const test::json fixture = test::load_fixture();
  for (const TensorName& name : kTensorNames) {
    switch (name.role) {
      case TensorRole::Input:
      case TensorRole::Weight:
        EXPECT_TRUE(fixture.contains(name.key)) << name.key;
        break;
      case TensorRole::Upstream: {
        const std::string branch = tensor_name<TensorRole::Output>(name.branch).key;
        EXPECT_TRUE(fixture.at("upstream").contains(branch)) << name.key;
        EXPECT_EQ(name.key, branch + "_upstream");
        break;
      }
      default:
        EXPECT_TRUE(fixture.at("expected").contains(name.key)) << name.key;
    }
  }
}

}  // namespace
}  // namespace qkv
