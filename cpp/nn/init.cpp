#include "nn/init.hpp"

#include <cmath>
#include <cstdio>

namespace qkv {

std::uint64_t SplitMix64::next_u64() {
  state_ += 0x9e3779b97f4a7c15ULL;  // unsigned: wraps, as the algorithm requires
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double SplitMix64::next_unit_f64() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

std::string InitializationError::message() const {
  switch (kind) {
    case InitializationErrorKind::EmptyName:
      return "parameter name must not be empty";
    case InitializationErrorKind::EmptyNameSegment:
      return "parameter name has an empty dot-separated segment at byte " + std::to_string(index);
    case InitializationErrorKind::InvalidNameByte: {
      char hex[3];
      std::snprintf(hex, sizeof hex, "%02x", byte);
      return "parameter name byte " + std::to_string(index) +
             " must be lowercase ASCII, a digit, underscore, or dot; got 0x" + hex;
    }
    case InitializationErrorKind::ZeroFanIn:
      return "fan-in must be greater than zero";
    case InitializationErrorKind::ZeroFanOut:
      return "fan-out must be greater than zero";
    case InitializationErrorKind::Tensor:
      return tensor->message();
    case InitializationErrorKind::DuplicateName:
      return "parameter name \"" + name + "\" first appears at index " + std::to_string(index) +
             " and repeats at index " + std::to_string(repeat_index);
  }
  return "unknown initialization error";
}

std::optional<InitializationError> validate_parameter_name(const std::string& name) {
  if (name.empty()) return InitializationError{InitializationErrorKind::EmptyName};
  bool segment_empty = true;  // no byte since the start or the last dot
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto byte = static_cast<unsigned char>(name[i]);
    if (byte == '.') {
      if (segment_empty) return InitializationError{InitializationErrorKind::EmptyNameSegment, i};
      segment_empty = true;
      continue;
    }
    const bool allowed = (byte >= 'a' && byte <= 'z') || (byte >= '0' && byte <= '9') || byte == '_';
    if (!allowed) {
      InitializationError error{InitializationErrorKind::InvalidNameByte, i};
      error.byte = byte;
      return error;
    }
    segment_empty = false;
  }
  // A trailing dot leaves an empty final segment, reported at the name's length.
  if (segment_empty) return InitializationError{InitializationErrorKind::EmptyNameSegment, name.size()};
  return std::nullopt;
}

static InitializationError tensor_error(TensorError error) {
  InitializationError wrapped{InitializationErrorKind::Tensor};
  wrapped.tensor = std::move(error);
  return wrapped;
}

Result<NamedParameter, InitializationError> NamedParameter::create(std::string name, Tensor value) {
  if (auto error = validate_parameter_name(name)) return fail(*error);
  auto leaf = TensorValue::parameter(std::move(value));
  if (!leaf) return fail(tensor_error(leaf.error()));
  return NamedParameter(std::move(name), std::move(*leaf));
}

Result<NamedParameters, InitializationError> NamedParameters::create(std::vector<NamedParameter> parameters) {
  for (std::size_t repeat = 0; repeat < parameters.size(); ++repeat) {
    for (std::size_t first = 0; first < repeat; ++first) {
      if (parameters[first].name() == parameters[repeat].name()) {
        InitializationError error{InitializationErrorKind::DuplicateName, first, repeat};
        error.name = parameters[repeat].name();
        return fail(error);
      }
    }
  }
  return NamedParameters(std::move(parameters));
}

Result<NamedParameter, InitializationError> xavier_uniform(const std::string& name, Extent fan_in,
                                                           Extent fan_out, SplitMix64& rng) {
  // Order: name, fan-in, fan-out, size.
  if (auto error = validate_parameter_name(name)) return fail(*error);
  if (fan_in == 0) return fail(InitializationError{InitializationErrorKind::ZeroFanIn});
  if (fan_out == 0) return fail(InitializationError{InitializationErrorKind::ZeroFanOut});
  auto zeros = Tensor::zeros({fan_in, fan_out});
  if (!zeros) return fail(tensor_error(zeros.error()));

  const double limit = std::sqrt(6.0 / (static_cast<double>(fan_in) + static_cast<double>(fan_out)));
  SplitMix64 trial = rng;
  Tensor weights = std::move(*zeros);
  for (double& value : weights.mutable_values()) value = limit * (2.0 * trial.next_unit_f64() - 1.0);
  auto parameter = NamedParameter::create(name, std::move(weights));
  if (!parameter) return parameter;
  rng = trial;
  return parameter;
}

}  // namespace qkv
