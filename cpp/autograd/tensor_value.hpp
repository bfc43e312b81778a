// TensorValue: a tensor on the reverse-mode tape. Operations record their parents and a local backward;
// backward() walks the recorded graph in reverse topological order and accumulates parameter gradients.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "tensor/tensor.hpp"

namespace qkv {

class TensorValue;

namespace detail {

// Adds the node's local derivative into its parents' adjoints (with accumulate(), accumulate_matmul():
// an adjoint is empty until its first term). `parent_adjoints[i]` is null when parent i is not tracked
// (nothing upstream of it needs a gradient).
using BackwardFn =
    std::function<void(const Tensor& adjoint, const std::vector<std::optional<Tensor>*>& parent_adjoints)>;

struct Node {
  Tensor value;
  bool tracked = false;
  bool parameter = false;
  // Parameters only: the sum of every backward pass so far; empty (reads as zeros) until the first one.
  std::optional<Tensor> gradient;
  std::vector<std::shared_ptr<Node>> parents;
  BackwardFn backward;
};

}  // namespace detail

class TensorValue {
 public:
  // A leaf the tape differentiates with respect to: finite values, gradient starts at zeros.
  static Result<TensorValue, TensorError> parameter(Tensor value);
  // A leaf the tape treats as fixed: finite values, no gradient.
  static Result<TensorValue, TensorError> constant(Tensor value);

  const Tensor& value() const { return node_->value; }
  const Shape& shape() const { return node_->value.shape(); }
  bool tracked() const { return node_->tracked; }
  bool is_parameter() const { return node_->parameter; }
  // The accumulated gradient of a parameter; empty for anything else.
  std::optional<Tensor> gradient() const;
  void zero_gradient();
  // Copies share the node: identity, not value, is what this compares.
  bool is_same_node(const TensorValue& other) const { return node_ == other.node_; }

  // Seeds a rank-0 tracked output with 1.0.
  Result<Unit, TensorError> backward() const;
  // Seeds the output with `seed` of exactly the output's shape. Gradients are committed only if every new
  // gradient is finite; otherwise nothing changes.
  Result<Unit, TensorError> backward_with_seed(const Tensor& seed) const;

  // For operations (autograd/ops.cpp): wraps a finite result, recording the parents it came from.
  static Result<TensorValue, TensorError> from_operation(const char* operation, Tensor result,
                                                         std::vector<TensorValue> parents,
                                                         detail::BackwardFn backward);

 private:
  explicit TensorValue(std::shared_ptr<detail::Node> node) : node_(std::move(node)) {}
  std::shared_ptr<detail::Node> node_;
};

}  // namespace qkv
