#include "learner/editable_state.hpp"

#include <algorithm>
#include <utility>

#include "learner/answer_reader.hpp"
#include "learner/exercise.hpp"
#include "response/tensor_names.hpp"
#include "text/format.hpp"
#include "text/template.hpp"

namespace qkv {
namespace {

EditableTensor editable(const Tensor& tensor) {
  EditableTensor out{tensor.shape(), {}, {}};
  for (double value : tensor.values()) out.cells.push_back(format_shortest(value));
  return out;
}

// Calls visit(index) for every multi-index of `shape`, in row-major order.
template <class Visit>
void each_index(const Shape& shape, Visit&& visit) {
  // Every shape here is within the size limits (refuse_shape), so this cannot fail.
  const Extent count = element_count(shape).value();
  std::vector<Extent> index(shape.size(), 0);
  for (Extent flat = 0; flat < count; ++flat) {
    visit(index);
    for (std::size_t axis = shape.size(); axis-- > 0;) {
      if (++index[axis] < shape[axis]) break;
      index[axis] = 0;
    }
  }
}

// The cell of `cells` at `index`, if its shape holds that index.
const std::string* cell_at(const EditableCells& cells, const std::vector<Extent>& index) {
  if (cells.shape.size() != index.size()) return nullptr;
  Extent flat = 0;
  for (std::size_t axis = 0; axis < index.size(); ++axis) {
    if (index[axis] >= cells.shape[axis]) return nullptr;
    flat = flat * cells.shape[axis] + index[axis];
  }
  return flat < cells.cells.size() ? &cells.cells[flat] : nullptr;
}

// Cells for `shape`, each from the first of `sources` that holds its index, else "0".
std::vector<std::string> cells_for(const Shape& shape, std::initializer_list<const EditableCells*> sources) {
  std::vector<std::string> out;
  each_index(shape, [&](const std::vector<Extent>& index) {
    const std::string* found = nullptr;
    for (const EditableCells* source : sources)
      if (!found) found = cell_at(*source, index);
    out.push_back(found ? *found : "0");
  });
  return out;
}

std::string numbers(std::size_t count) {
  return std::to_string(count) + (count == 1 ? " number" : " numbers");
}

// The tensor at the new shape. Cells keep their multi-index; cells outside it stay in `kept`.
EditableTensor conform(const EditableTensor& tensor, const Shape& shape, const std::string& field,
                       std::vector<std::string>& notes) {
  if (tensor.shape == shape) return tensor;
  if (tensor.shape.empty()) {
    // From a link: the cells in row-major order, if their count fits the sizes.
    const std::size_t need = element_count(shape).value();
    EditableTensor out{shape, tensor.cells, {}};
    if (tensor.cells.size() != need) {
      notes.push_back(
          fill("The link gave {0} for {1}, which needs {2} at {3}; {4}",
               {numbers(tensor.cells.size()), field_label(field), numbers(need), shape_text(shape),
                tensor.cells.size() > need ? "the extra ones were left out." : "the missing ones are 0."}));
      out.cells.resize(need, "0");
    }
    out.kept = {shape, out.cells};
    return out;
  }
  const EditableCells current{tensor.shape, tensor.cells};
  EditableCells merged = current;
  if (tensor.kept.shape.size() == tensor.shape.size()) {
    for (std::size_t axis = 0; axis < merged.shape.size(); ++axis)
      merged.shape[axis] = std::max(merged.shape[axis], tensor.kept.shape[axis]);
    merged.cells = cells_for(merged.shape, {&current, &tensor.kept});
  }
  return EditableTensor{shape, cells_for(shape, {&merged}), merged};
}

// A shape the page sends back (a tensor's own, or its kept cells'): none (from a link, or nothing kept), or
// the tensor's axes, each within its size's limit. Checked before any cell is visited: a hostile shape would
// otherwise ask for up to 2^26 cells, or more than a tensor may hold (which is a bug, and stops the core).
std::optional<LessonError> refuse_shape(const Shape& shape, const Shape& limit, const std::string& what,
                                        const std::string& field) {
  bool fits = shape.empty() || shape.size() == limit.size();
  for (std::size_t axis = 0; fits && axis < shape.size(); ++axis) fits = shape[axis] <= limit[axis];
  if (fits) return std::nullopt;
  const std::string message =
      fill("{0}: {1} {2} is not accepted: expected [] or {3} axes within the size limits {4}, at most {5}",
           {field_label(field), what, shape_text(shape), std::to_string(limit.size()), shape_text(limit),
            numbers(element_count(limit).value())});
  return LessonError{ErrorKind::Size, message, field};
}

Result<Tensor, LessonError> read_tensor(const EditableTensor& tensor, const std::string& field) {
  std::vector<double> values;
  for (std::size_t i = 0; i < tensor.cells.size(); ++i) {
    auto value = read_number(tensor.cells[i]);
    if (!value)
      return fail(
          LessonError{ErrorKind::Number, value.error().message(), field, static_cast<std::int64_t>(i)});
    values.push_back(*value);
  }
  auto out = Tensor::from_values(tensor.shape, std::move(values));
  if (!out) return fail(lesson_error(out.error(), field));
  return std::move(*out);
}

}  // namespace

std::string field_label(const std::string& field) {
  static const std::pair<const char*, const char*> labels[] = {
      {"batch", "Batch B"},
      {"tokens", "Tokens T"},
      {"model_width", "Model width d_model"},
      {"head_width", "Head width d_head"},
  };
  for (const auto& [name, label] : labels)
    if (field == name) return label;
  // The state's tensors only: an output or a gradient named in an error keeps its key.
  for (const TensorName& name : kTensorNames)
    if (is_state(name.role) && field == name.key) return name.label;
  return field;
}

LessonState state_of(const ProjectionRequest& request) {
  const Shape& x = request.input.shape();
  const Shape& w = request.query_weight.shape();
  return LessonState{std::to_string(x[0]),
                     std::to_string(x[1]),
                     std::to_string(w[0]),
                     std::to_string(w[1]),
                     editable(request.input),
                     editable(request.query_weight),
                     editable(request.key_weight),
                     editable(request.value_weight),
                     editable(request.upstream->query),
                     editable(request.upstream->key),
                     editable(request.upstream->value)};
}

LessonState fixture_state() { return state_of(chapter_fixture()); }

LessonRequest read_lesson_request(const LessonState& typed) {
  LessonRequest result{typed, std::nullopt, std::nullopt, {}};
  LessonState& state = result.state;

  // Validation order: batch, tokens, model width, head width; then the shapes of the tensors in the order
  // below (each its own, then its kept cells'); then their cells in the same order.
  const std::string* size_texts[] = {&state.batch, &state.tokens, &state.model_width, &state.head_width};
  Extent sizes[4];
  for (std::size_t i = 0; i < 4; ++i) {
    const SizeLimit& limit = kSizeLimits[i];
    auto size = read_count(*size_texts[i], limit.min, limit.max);
    if (!size) {
      result.error =
          LessonError{ErrorKind::Size, field_label(limit.field) + ": " + size.error().message(), limit.field};
      return result;
    }
    sizes[i] = *size;
  }
  const Extent b = sizes[0], t = sizes[1], d = sizes[2], h = sizes[3];
  const Extent max_b = kSizeLimits[0].max, max_t = kSizeLimits[1].max, max_d = kSizeLimits[2].max,
               max_h = kSizeLimits[3].max;

  const struct {
    EditableTensor* tensor;
    Shape shape, limit;
    const char* field;
  } tensors[] = {
      {&state.input, {b, t, d}, {max_b, max_t, max_d}, tensor_name<TensorRole::Input>().key},
      {&state.query_weight, {d, h}, {max_d, max_h}, tensor_name<TensorRole::Weight>(0).key},
      {&state.key_weight, {d, h}, {max_d, max_h}, tensor_name<TensorRole::Weight>(1).key},
      {&state.value_weight, {d, h}, {max_d, max_h}, tensor_name<TensorRole::Weight>(2).key},
      {&state.query_upstream, {b, t, h}, {max_b, max_t, max_h}, tensor_name<TensorRole::Upstream>(0).key},
      {&state.key_upstream, {b, t, h}, {max_b, max_t, max_h}, tensor_name<TensorRole::Upstream>(1).key},
      {&state.value_upstream, {b, t, h}, {max_b, max_t, max_h}, tensor_name<TensorRole::Upstream>(2).key},
  };
  for (const auto& entry : tensors) {
    auto refused = refuse_shape(entry.tensor->shape, entry.limit, "shape", entry.field);
    if (!refused) refused = refuse_shape(entry.tensor->kept.shape, entry.limit, "kept shape", entry.field);
    if (refused) {
      result.error = std::move(refused);
      return result;
    }
  }
  for (const auto& entry : tensors)
    *entry.tensor = conform(*entry.tensor, entry.shape, entry.field, result.notes);
  std::vector<Tensor> parsed;
  for (const auto& entry : tensors) {
    auto tensor = read_tensor(*entry.tensor, entry.field);
    if (!tensor) {
      result.error = tensor.error();
      return result;
    }
    parsed.push_back(std::move(*tensor));
  }

  result.request = ProjectionRequest{parsed[0], parsed[1], parsed[2], parsed[3],
                                     Upstreams{parsed[4], parsed[5], parsed[6]}};
  return result;
}

LessonEvaluation evaluate_lesson(const LessonState& typed, bool gradcheck, bool bitwise) {
  LessonRequest read = read_lesson_request(typed);
  LessonEvaluation result{std::move(read.state), std::nullopt, std::move(read.error), std::move(read.notes)};
  if (!read.request) return result;
  auto evidence = compute_chapter_evidence(*read.request, gradcheck, bitwise);
  if (!evidence) {
    result.error = evidence.error();
    return result;
  }
  result.evidence = std::move(*evidence);
  return result;
}

}  // namespace qkv
