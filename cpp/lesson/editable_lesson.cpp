#include "lesson/editable_lesson.hpp"

#include "lesson/format.hpp"
#include "lesson/number_text.hpp"

namespace qkv {
namespace {

EditableTensor editable(const Tensor& tensor) {
  EditableTensor out{tensor.shape(), {}};
  for (double value : tensor.values()) out.cells.push_back(format_shortest(value));
  return out;
}

// Keeps the cell at each multi-index both shapes share; new cells start at "0".
// A tensor without a shape (as read from a link) whose cell count fits is taken in row-major order.
EditableTensor conform(const EditableTensor& tensor, const Shape& shape) {
  if (tensor.shape == shape) return tensor;
  if (tensor.shape.empty() && tensor.cells.size() == element_count(shape).value())
    return {shape, tensor.cells};
  EditableTensor out{shape, {}};
  const Extent count = element_count(shape).value();  // sizes are capped, so this cannot fail
  std::vector<Extent> index(shape.size(), 0);
  for (Extent flat = 0; flat < count; ++flat) {
    bool inside = tensor.shape.size() == shape.size();
    Extent old_flat = 0;
    for (std::size_t axis = 0; inside && axis < shape.size(); ++axis) {
      inside = index[axis] < tensor.shape[axis];
      old_flat = old_flat * tensor.shape[axis] + index[axis];
    }
    out.cells.push_back(inside && old_flat < tensor.cells.size() ? tensor.cells[old_flat] : "0");
    for (std::size_t axis = shape.size(); axis-- > 0;) {
      if (++index[axis] < shape[axis]) break;
      index[axis] = 0;
    }
  }
  return out;
}

Result<Tensor, FieldError> parse_tensor(const EditableTensor& tensor, const std::string& field) {
  std::vector<double> values;
  for (std::size_t i = 0; i < tensor.cells.size(); ++i) {
    auto value = parse_decimal(tensor.cells[i]);
    if (!value) return fail(FieldError{field, static_cast<std::int64_t>(i), "number", value.error()});
    values.push_back(*value);
  }
  auto out = Tensor::from_values(tensor.shape, std::move(values));
  if (!out) return fail(FieldError{field, -1, "tensor", out.error().message()});
  return std::move(*out);
}

}  // namespace

LessonState fixture_state() {
  const ProjectionRequest fixture = chapter_fixture();
  const Shape& x = fixture.input.shape();
  const Shape& w = fixture.query_weight.shape();
  return LessonState{std::to_string(x[0]),
                     std::to_string(x[1]),
                     std::to_string(w[0]),
                     std::to_string(w[1]),
                     editable(fixture.input),
                     editable(fixture.query_weight),
                     editable(fixture.key_weight),
                     editable(fixture.value_weight),
                     editable(fixture.upstream->query),
                     editable(fixture.upstream->key),
                     editable(fixture.upstream->value)};
}

LessonEvaluation evaluate_lesson(const LessonState& typed) {
  LessonEvaluation result{typed, std::nullopt, std::nullopt};
  LessonState& state = result.state;

  Extent sizes[4];
  const std::pair<const std::string*, const char*> size_fields[] = {{&state.batch, "batch"},
                                                                    {&state.tokens, "tokens"},
                                                                    {&state.model_width, "model_width"},
                                                                    {&state.head_width, "head_width"}};
  for (std::size_t i = 0; i < 4; ++i) {
    auto size = parse_extent(*size_fields[i].first, size_fields[i].second, kMaxEditableExtent);
    if (!size) {
      result.error = FieldError{size_fields[i].second, -1, "size", size.error()};
      return result;
    }
    sizes[i] = *size;
  }
  const Extent b = sizes[0], t = sizes[1], d = sizes[2], h = sizes[3];

  const struct {
    EditableTensor* tensor;
    Shape shape;
    const char* field;
  } tensors[] = {
      {&state.input, {b, t, d}, "input"},
      {&state.query_weight, {d, h}, "query_weight"},
      {&state.key_weight, {d, h}, "key_weight"},
      {&state.value_weight, {d, h}, "value_weight"},
      {&state.query_upstream, {b, t, h}, "query_upstream"},
      {&state.key_upstream, {b, t, h}, "key_upstream"},
      {&state.value_upstream, {b, t, h}, "value_upstream"},
  };
  std::vector<Tensor> parsed;
  for (const auto& entry : tensors) {
    *entry.tensor = conform(*entry.tensor, entry.shape);
    auto tensor = parse_tensor(*entry.tensor, entry.field);
    if (!tensor) {
      result.error = tensor.error();
      return result;
    }
    parsed.push_back(std::move(*tensor));
  }

  ProjectionRequest request{parsed[0], parsed[1], parsed[2], parsed[3],
                            Upstreams{parsed[4], parsed[5], parsed[6]}};
  auto evidence = compute_chapter_evidence(request);
  if (!evidence) {
    const LessonError& error = evidence.error();
    result.error = FieldError{error.field, -1, error.kind, error.message};
    return result;
  }
  result.evidence = std::move(*evidence);
  return result;
}

}  // namespace qkv
