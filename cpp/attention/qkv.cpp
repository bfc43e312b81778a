#include "attention/qkv.hpp"

namespace qkv {
namespace {

QkvError projection_error(Branch branch, LinearError source) {
  QkvError error{QkvErrorKind::Projection, branch};
  error.linear = std::move(source);
  return error;
}

QkvError widths_error(QkvErrorKind kind, const Linear& q, const Linear& k, const Linear& v, bool input) {
  QkvError error{kind};
  error.query = input ? q.input_width() : q.output_width();
  error.key = input ? k.input_width() : k.output_width();
  error.value = input ? v.input_width() : v.output_width();
  return error;
}

}  // namespace

const char* branch_name(Branch branch) {
  switch (branch) {
    case Branch::Query:
      return "query";
    case Branch::Key:
      return "key";
    case Branch::Value:
      return "value";
  }
  return "unknown";
}

std::string QkvError::message() const {
  const auto widths = [this] {
    return "got query " + std::to_string(query) + ", key " + std::to_string(key) + ", value " +
           std::to_string(value);
  };
  switch (kind) {
    case QkvErrorKind::Projection:
      return std::string(branch_name(branch)) + " projection: " + linear->message();
    case QkvErrorKind::InputRank:
      return "Q/K/V input must have rank three [batch, tokens, model_width], got rank " +
             std::to_string(actual);
    case QkvErrorKind::InputWidthMismatch:
      return "Q/K/V input final width must equal model width " + std::to_string(expected) + ", got " +
             std::to_string(actual);
    case QkvErrorKind::BranchInputWidthMismatch:
      return "Q/K/V model widths must match, " + widths();
    case QkvErrorKind::BranchOutputWidthMismatch:
      return "Q/K/V head widths must match, " + widths();
    case QkvErrorKind::Initialization:
      return initialization->message();
  }
  return "unknown Q/K/V error";
}

Result<QkvProjections, QkvError> QkvProjections::create(const std::string& prefix, Extent model_width,
                                                        Extent head_width, SplitMix64& rng) {
  SplitMix64 trial = rng;
  auto query = Linear::create(prefix + ".query", model_width, head_width, false, trial);
  if (!query) return fail(projection_error(Branch::Query, query.error()));
  auto key = Linear::create(prefix + ".key", model_width, head_width, false, trial);
  if (!key) return fail(projection_error(Branch::Key, key.error()));
  auto value = Linear::create(prefix + ".value", model_width, head_width, false, trial);
  if (!value) return fail(projection_error(Branch::Value, value.error()));
  auto projections = from_layers(std::move(*query), std::move(*key), std::move(*value));
  if (!projections) return projections;
  rng = trial;
  return projections;
}

Result<QkvProjections, QkvError> QkvProjections::from_weights(NamedParameter query_weight,
                                                              NamedParameter key_weight,
                                                              NamedParameter value_weight) {
  auto query = Linear::from_parameters(std::move(query_weight), std::nullopt);
  if (!query) return fail(projection_error(Branch::Query, query.error()));
  auto key = Linear::from_parameters(std::move(key_weight), std::nullopt);
  if (!key) return fail(projection_error(Branch::Key, key.error()));
  auto value = Linear::from_parameters(std::move(value_weight), std::nullopt);
  if (!value) return fail(projection_error(Branch::Value, value.error()));
  return from_layers(std::move(*query), std::move(*key), std::move(*value));
}

Result<QkvProjections, QkvError> QkvProjections::from_layers(Linear query, Linear key, Linear value) {
  // Order: model widths, head widths, unique names.
  if (query.input_width() != key.input_width() || query.input_width() != value.input_width()) {
    return fail(widths_error(QkvErrorKind::BranchInputWidthMismatch, query, key, value, true));
  }
  if (query.output_width() != key.output_width() || query.output_width() != value.output_width()) {
    return fail(widths_error(QkvErrorKind::BranchOutputWidthMismatch, query, key, value, false));
  }
  auto parameters = NamedParameters::create({query.weight(), key.weight(), value.weight()});
  if (!parameters) {
    QkvError error{QkvErrorKind::Initialization};
    error.initialization = parameters.error();
    return fail(error);
  }
  return QkvProjections(std::move(query), std::move(key), std::move(value), std::move(*parameters));
}

const Linear& QkvProjections::branch(Branch branch) const {
  switch (branch) {
    case Branch::Key:
      return key_;
    case Branch::Value:
      return value_;
    case Branch::Query:
    default:
      return query_;
  }
}

Result<QkvOutputs, QkvError> QkvProjections::forward(const TensorValue& input) const {
  const Shape& shape = input.shape();
  if (shape.size() != 3) {
    QkvError error{QkvErrorKind::InputRank};
    error.actual = shape.size();
    return fail(error);
  }
  if (shape[2] != model_width()) {
    QkvError error{QkvErrorKind::InputWidthMismatch};
    error.expected = model_width();
    error.actual = shape[2];
    return fail(error);
  }
  auto query = query_.forward(input);
  if (!query) return fail(projection_error(Branch::Query, query.error()));
  auto key = key_.forward(input);
  if (!key) return fail(projection_error(Branch::Key, key.error()));
  auto value = value_.forward(input);
  if (!value) return fail(projection_error(Branch::Value, value.error()));
  return QkvOutputs{std::move(*query), std::move(*key), std::move(*value)};
}

}  // namespace qkv
