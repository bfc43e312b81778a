// QkvProjections: three independent bias-free linear maps from one hidden sequence [B, T, d_model] to the
// query, key and value views, each [B, T, d_head].
#pragma once

#include "nn/linear.hpp"

namespace qkv {

enum class Branch { Query, Key, Value };
const char* branch_name(Branch branch);

enum class QkvErrorKind {
  Projection,                 // one branch's Linear rejected something; names the branch
  InputRank,                  // input is not [batch, tokens, model_width]
  InputWidthMismatch,         // input's last axis is not the model width
  BranchInputWidthMismatch,   // the three weights disagree on d_model
  BranchOutputWidthMismatch,  // the three weights disagree on d_head
  Initialization,             // duplicate names; prints the inner message
};

struct QkvError {
  QkvErrorKind kind;
  Branch branch = Branch::Query;         // Projection only
  Extent expected = 0;                   // InputWidthMismatch
  Extent actual = 0;                     // InputWidthMismatch; the rank for InputRank
  Extent query = 0, key = 0, value = 0;  // the branch widths for the mismatch errors
  std::optional<LinearError> linear;
  std::optional<InitializationError> initialization;

  std::string message() const;
};

struct QkvOutputs {
  TensorValue query;
  TensorValue key;
  TensorValue value;
};

class QkvProjections {
 public:
  // Initialises "{prefix}.query", ".key", ".value" (each with ".weight") in that order from one stream.
  // Works on a copy of `rng` and writes it back only when all three branches and the checks succeed.
  static Result<QkvProjections, QkvError> create(const std::string& prefix, Extent model_width,
                                                 Extent head_width, SplitMix64& rng);
  // Gives query, key and value roles to three existing [d_model, d_head] weights. Checks each branch in
  // order, then equal model widths, then equal head widths, then unique names.
  static Result<QkvProjections, QkvError> from_weights(NamedParameter query_weight, NamedParameter key_weight,
                                                       NamedParameter value_weight);

  // Exactly rank three (rank before width); empty batch and token axes are valid.
  Result<QkvOutputs, QkvError> forward(const TensorValue& input) const;

  const Linear& query() const { return query_; }
  const Linear& key() const { return key_; }
  const Linear& value() const { return value_; }
  const Linear& branch(Branch branch) const;
  // The same nodes as the three branch weights, in query, key, value order.
  const std::vector<NamedParameter>& parameters() const { return parameters_.items(); }
  Extent model_width() const { return query_.input_width(); }
  Extent head_width() const { return query_.output_width(); }
  Extent parameter_count() const { return 3 * model_width() * head_width(); }

 private:
  QkvProjections(Linear query, Linear key, Linear value, NamedParameters parameters)
      : query_(std::move(query)),
        key_(std::move(key)),
        value_(std::move(value)),
        parameters_(std::move(parameters)) {}
  static Result<QkvProjections, QkvError> from_layers(Linear query, Linear key, Linear value);

  Linear query_;
  Linear key_;
  Linear value_;
  NamedParameters parameters_;
};

}  // namespace qkv
