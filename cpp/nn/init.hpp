// Seeded initialisation: the SplitMix64 generator, Xavier-uniform weights, and named parameters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "autograd/tensor_value.hpp"

namespace qkv {

// SplitMix64 (Steele, Lea, Flood 2014). The seed is the raw state, so the same seed gives the same bits
// as the Rust course.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next_u64();
  // The top 53 bits scaled into [0, 1).
  double next_unit_f64();
  std::uint64_t state() const { return state_; }
  bool operator==(const SplitMix64& other) const { return state_ == other.state_; }

 private:
  std::uint64_t state_;
};

enum class InitializationErrorKind {
  EmptyName,         // ""
  EmptyNameSegment,  // "a..b", ".a", "a."
  InvalidNameByte,   // anything outside a-z 0-9 _ .
  ZeroFanIn,
  ZeroFanOut,
  Tensor,  // values rejected by the tape (non-finite) or a shape too large
  DuplicateName,
};

struct InitializationError {
  InitializationErrorKind kind;
  std::size_t index = 0;         // byte index for name errors; first index for duplicates
  std::size_t repeat_index = 0;  // duplicates only
  unsigned char byte = 0;        // InvalidNameByte only
  std::string name;              // DuplicateName only
  std::optional<TensorError> tensor;

  std::string message() const;
};

// Checks the name grammar: non-empty; bytes a-z 0-9 _ . only; no empty dot-separated segment. Scanned left
// to right; the first offending byte wins.
std::optional<InitializationError> validate_parameter_name(const std::string& name);

// A parameter leaf with a stable name: the identity used by checkpoints, optimisers and lookups.
class NamedParameter {
 public:
  // The name is checked before the values.
  static Result<NamedParameter, InitializationError> create(std::string name, Tensor value);

  const std::string& name() const { return name_; }
  const TensorValue& value() const { return value_; }
  const Shape& shape() const { return value_.shape(); }

 private:
  NamedParameter(std::string name, TensorValue value) : name_(std::move(name)), value_(std::move(value)) {}
  std::string name_;
  TensorValue value_;
};

// An ordered list of parameters whose names are unique.
class NamedParameters {
 public:
  // Rejects the first repeat, reporting the first earlier index with the same name.
  static Result<NamedParameters, InitializationError> create(std::vector<NamedParameter> parameters);
  const std::vector<NamedParameter>& items() const { return items_; }

 private:
  explicit NamedParameters(std::vector<NamedParameter> items) : items_(std::move(items)) {}
  std::vector<NamedParameter> items_;
};

// Xavier-uniform [fan_in, fan_out]: limit = sqrt(6 / (fan_in + fan_out)), one draw per element in row-major
// order, v = limit * (2u - 1). Draws from a copy of `rng` and commits it only on success.
Result<NamedParameter, InitializationError> xavier_uniform(const std::string& name, Extent fan_in,
                                                           Extent fan_out, SplitMix64& rng);

}  // namespace qkv
