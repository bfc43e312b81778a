#include "autograd/tensor_value.hpp"

#include <map>
#include <set>

namespace qkv {
namespace {

std::optional<TensorError> non_finite_error(const char* operation, const Tensor& tensor) {
  const std::int64_t index = first_non_finite(tensor);
  if (index < 0) return std::nullopt;
  TensorError error{TensorErrorKind::NonFinite, operation};
  error.index = static_cast<Extent>(index);
  error.value = tensor[static_cast<std::size_t>(index)];
  return error;
}

// Depth-first post-order over tracked parents, in operand order: every node after all of its inputs. Ordered
// containers, not hashed ones, here and below: a pass has tens of nodes, and libc++'s hash tables (with its
// prime table) cost the page's module 2.1 kB of gzip, with js_key's in wasm/bindings.hpp.
void visit(const std::shared_ptr<detail::Node>& node, std::set<const detail::Node*>& seen,
           std::vector<std::shared_ptr<detail::Node>>& order) {
  if (!node->tracked || !seen.insert(node.get()).second) return;
  for (const auto& parent : node->parents) visit(parent, seen, order);
  order.push_back(node);
}

}  // namespace

Result<TensorValue, TensorError> TensorValue::parameter(Tensor value) {
  if (auto error = non_finite_error("parameter", value)) return fail(*error);
  auto node = std::make_shared<detail::Node>();
  node->value = std::move(value);
  node->tracked = true;
  node->parameter = true;
  return TensorValue(std::move(node));
}

Result<TensorValue, TensorError> TensorValue::constant(Tensor value) {
  if (auto error = non_finite_error("constant", value)) return fail(*error);
  auto node = std::make_shared<detail::Node>();
  node->value = std::move(value);
  return TensorValue(std::move(node));
}

std::optional<Tensor> TensorValue::gradient() const {
  if (!node_->parameter) return std::nullopt;
  if (!node_->gradient) return Tensor::zeros(shape()).value();
  return node_->gradient;
}

void TensorValue::zero_gradient() { node_->gradient.reset(); }

Result<TensorValue, TensorError> TensorValue::from_operation(const char* operation, Tensor result,
                                                             std::vector<TensorValue> parents,
                                                             detail::BackwardFn backward) {
  if (auto error = non_finite_error(operation, result)) return fail(*error);
  auto node = std::make_shared<detail::Node>();
  node->value = std::move(result);
  for (const TensorValue& parent : parents) node->tracked = node->tracked || parent.tracked();
  // An untracked result needs neither its parents nor a backward: it is a constant.
  if (node->tracked) {
    for (TensorValue& parent : parents) node->parents.push_back(std::move(parent.node_));
    node->backward = std::move(backward);
  }
  return TensorValue(std::move(node));
}

Result<Unit, TensorError> TensorValue::backward() const {
  if (!shape().empty() || !tracked()) {
    TensorError error{TensorErrorKind::BackwardOutput, "backward"};
    error.actual_count = shape().size();
    return fail(error);
  }
  return backward_with_seed(Tensor::scalar(1.0));
}

Result<Unit, TensorError> TensorValue::backward_with_seed(const Tensor& seed) const {
  if (!tracked()) {
    TensorError error{TensorErrorKind::BackwardOutput, "backward"};
    return fail(error);
  }
  if (seed.shape() != shape()) {
    TensorError error{TensorErrorKind::SeedShape, "backward"};
    error.expected = shape();
    error.actual = seed.shape();
    return fail(error);
  }
  std::vector<std::shared_ptr<detail::Node>> order;
  std::set<const detail::Node*> seen;
  visit(node_, seen, order);

  // Adjoints for this pass only, indexed like `order`. Each starts empty (standing for +0.0 zeros) and is
  // allocated by its first term; a node's adjoint is released once its backward has used it.
  std::map<const detail::Node*, std::size_t> position;
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i].get()] = i;
  std::vector<std::optional<Tensor>> adjoints(order.size());
  adjoints.back() = seed;

  std::vector<std::optional<Tensor>*> parent_adjoints;
  for (std::size_t i = order.size(); i-- > 0;) {
    const detail::Node& node = *order[i];
    if (!node.backward) continue;
    if (!adjoints[i]) adjoints[i] = Tensor::zeros(node.value.shape()).value();  // no term arrived
    parent_adjoints.clear();
    for (const auto& parent : node.parents) {
      parent_adjoints.push_back(parent->tracked ? &adjoints[position.at(parent.get())] : nullptr);
    }
    node.backward(*adjoints[i], parent_adjoints);
    adjoints[i].reset();
  }

  // Commit all or nothing: a gradient that overflowed must not leave the others half-updated. Each new
  // gradient is built in its adjoint's storage: gradient + adjoint, or +0.0 + adjoint the first time.
  std::vector<Tensor> updated;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const detail::Node& node = *order[i];
    if (!node.parameter) continue;
    Tensor gradient = adjoints[i] ? std::move(*adjoints[i]) : Tensor::zeros(node.value.shape()).value();
    std::vector<double>& values = gradient.mutable_values();
    if (node.gradient) {
      for (std::size_t v = 0; v < values.size(); ++v) values[v] = (*node.gradient)[v] + values[v];
    } else {
      for (double& value : values) value = 0.0 + value;
    }
    if (auto error = non_finite_error("gradient", gradient)) return fail(*error);
    updated.push_back(std::move(gradient));
  }
  std::size_t next = 0;
  for (const auto& node : order) {
    if (node->parameter) node->gradient = std::move(updated[next++]);
  }
  return Unit{};
}

}  // namespace qkv
