// The lesson's tensors by name, once: each one's page key (the request's field, the response's member,
// the `tensor` a provenance call names, the `field` of an error) and the label the page writes for it
// ("W_Q"), with its role and branch. Every room that names them takes what it needs from this table: the
// editable state (learner/editable_state.cpp), the provenance of a cell (learner/provenance.cpp), the
// exercises, the upstream check (chapter26/projection_evidence.cpp) and the scale section. The chapter's
// report and trace are not users: their keys are the Rust course's output format (fixtures/golden/), which
// must not follow a rename here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>

namespace qkv {

enum class TensorRole : std::uint8_t {
  Input,           // X
  Weight,          // W_Q, W_K, W_V
  Upstream,        // U_Q, U_K, U_V: the upstream gradients dL/dQ, dL/dK, dL/dV
  Output,          // Q, K, V
  Scores,          // S = Q Kᵀ: the look-ahead to the next chapter
  InputGradient,   // X̄
  WeightGradient,  // W̄_Q, W̄_K, W̄_V
};

struct TensorName {
  const char* key;    // the page key: "query_weight"
  const char* label;  // the page's label: "W_Q"
  TensorRole role;
  std::uint8_t branch;  // 0 query, 1 key, 2 value; 0 for X, S and X̄ (not one branch's)
};

// The learner's state first (X, the weights, the upstreams: the order the lesson reads and checks them in),
// then what the core computes from it.
inline constexpr TensorName kTensorNames[] = {
    {"input", "X", TensorRole::Input, 0},
    {"query_weight", "W_Q", TensorRole::Weight, 0},
    {"key_weight", "W_K", TensorRole::Weight, 1},
    {"value_weight", "W_V", TensorRole::Weight, 2},
    {"query_upstream", "U_Q", TensorRole::Upstream, 0},
    {"key_upstream", "U_K", TensorRole::Upstream, 1},
    {"value_upstream", "U_V", TensorRole::Upstream, 2},
    {"query", "Q", TensorRole::Output, 0},
    {"key", "K", TensorRole::Output, 1},
    {"value", "V", TensorRole::Output, 2},
    {"scores", "S", TensorRole::Scores, 0},
    {"input_gradient", "X\xCC\x84", TensorRole::InputGradient, 0},            // X̄
    {"query_weight_gradient", "W\xCC\x84_Q", TensorRole::WeightGradient, 0},  // W̄_Q
    {"key_weight_gradient", "W\xCC\x84_K", TensorRole::WeightGradient, 1},
    {"value_weight_gradient", "W\xCC\x84_V", TensorRole::WeightGradient, 2},
};

// The learner's state: the tensors a learner edits (the table's first entries).
constexpr bool is_state(TensorRole role) {
  return role == TensorRole::Input || role == TensorRole::Weight || role == TensorRole::Upstream;
}

// Where a role's entries start; each role's entries are consecutive, by branch (checked below).
constexpr std::size_t first_of(TensorRole role) {
  std::size_t i = 0;
  while (i < std::size(kTensorNames) && kTensorNames[i].role != role) ++i;
  return i;
}
template <TensorRole role>
inline constexpr std::size_t kFirstOf = first_of(role);

// The tensor of a role and branch (X, S and X̄: branch 0): tensor_name<TensorRole::Weight>(1) is W_K. The
// role is a template argument so that the lookup is one load at run time (a search cost the lesson's
// module 100 bytes of gzip); the branch must be one the role has.
template <TensorRole role>
constexpr const TensorName& tensor_name(std::size_t branch = 0) {
  return kTensorNames[kFirstOf<role> + branch];
}

constexpr bool consecutive_by_branch() {
  for (const TensorName& name : kTensorNames)
    if (&kTensorNames[first_of(name.role) + name.branch] != &name) return false;
  return true;
}
static_assert(consecutive_by_branch(), "each role's tensors are consecutive, in branch order");
static_assert(is_state(kTensorNames[6].role) && !is_state(kTensorNames[7].role),
              "the state's seven tensors come first");

}  // namespace qkv
