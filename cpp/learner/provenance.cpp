#include "learner/provenance.hpp"

#include "response/tensor_names.hpp"
#include "text/format.hpp"

namespace qkv {

std::string written_factor(double value) {
  const std::string text = format_prose(value);
  return value < 0 || text.rfind("\xE2\x88\x92", 0) == 0 ? "(" + text + ")" : text;
}

std::string written_products(const std::vector<double>& left, const std::vector<double>& right) {
  std::string out;
  for (std::size_t i = 0; i < left.size(); ++i) {
    if (i > 0) out += " + ";
    out += written_factor(left[i]) + "\xC2\xB7" + written_factor(right[i]);
  }
  return out.empty() ? "(empty sum)" : out;
}

namespace {

std::string indices(std::initializer_list<Extent> at) {
  std::string out;
  for (Extent i : at) out += (out.empty() ? "" : ",") + std::to_string(i);
  return "[" + out + "]";
}

// One branch's tensors, from the one table of names: each gives its page key and its label.
struct BranchNames {
  const TensorName& output;    // Q, K or V
  const TensorName& weight;    // W_Q, W_K or W_V
  const TensorName& upstream;  // U_Q, U_K or U_V
  const TensorName& gradient;  // W̄_Q, W̄_K or W̄_V
};
BranchNames branch_names(std::size_t branch) {
  return {tensor_name<TensorRole::Output>(branch), tensor_name<TensorRole::Weight>(branch),
          tensor_name<TensorRole::Upstream>(branch), tensor_name<TensorRole::WeightGradient>(branch)};
}

const Tensor& weight_of(const ProjectionRequest& r, std::size_t branch) {
  return branch == 0 ? r.query_weight : branch == 1 ? r.key_weight : r.value_weight;
}
const Tensor& upstream_of(const ProjectionRequest& r, std::size_t branch) {
  return branch == 0 ? r.upstream->query : branch == 1 ? r.upstream->key : r.upstream->value;
}
const Tensor& output_of(const ProjectionEvidence& e, std::size_t branch) {
  return branch == 0 ? e.query : branch == 1 ? e.key : e.value;
}
const Tensor& gradient_of(const ProjectionGradients& g, std::size_t branch) {
  return branch == 0 ? g.query_weight : branch == 1 ? g.key_weight : g.value_weight;
}

// One dot product Σ_i a[a_at(i)]·b[b_at(i)] over i < n: the cells it reads from each tensor, in order, and
// its terms written out.
struct Dot {
  SourceCells left, right;
  std::string terms;
};
template <class LeftAt, class RightAt>
Dot dot(const char* left_key, const std::vector<double>& a, LeftAt a_at, const char* right_key,
        const std::vector<double>& b, RightAt b_at, Extent n) {
  Dot out{{left_key, {}}, {right_key, {}}, {}};
  std::vector<double> left, right;
  for (Extent i = 0; i < n; ++i) {
    out.left.indices.push_back(a_at(i));
    out.right.indices.push_back(b_at(i));
    left.push_back(a[a_at(i)]);
    right.push_back(b[b_at(i)]);
  }
  out.terms = written_products(left, right);
  return out;
}

std::string row_name(Extent b, Extent t) { return "b" + std::to_string(b) + " t" + std::to_string(t); }

}  // namespace

Result<CellProvenance, LessonError> cell_provenance(const ChapterEvidence& evidence,
                                                    const std::string& tensor, Extent index) {
  return cell_provenance(evidence.request, evidence.primary, tensor, index);
}

Result<CellProvenance, LessonError> cell_provenance(const ProjectionRequest& r,
                                                    const ProjectionEvidence& primary,
                                                    const std::string& tensor, Extent index) {
  const Extent d = r.input.shape()[2], h = r.query_weight.shape()[1];
  const Extent t_count = r.input.shape()[1];
  const Extent rows = r.input.shape()[0] * t_count;  // B·T
  const std::vector<double>& x = r.input.values();
  const TensorName& input = tensor_name<TensorRole::Input>();
  const auto out_of_range = [&](Extent size) {
    return fail(LessonError{ErrorKind::Arguments,
                            tensor + " has " + std::to_string(size) + " cells, so cell " +
                                std::to_string(index) + " does not exist",
                            tensor, static_cast<std::int64_t>(index)});
  };

  for (std::size_t branch = 0; branch < 3; ++branch) {
    const BranchNames names = branch_names(branch);
    const std::vector<double>& w = weight_of(r, branch).values();
    if (tensor == names.output.key) {
      // Q[b,t,j] = Σ_k X[b,t,k] · W_Q[k,j]
      if (index >= rows * h) return out_of_range(rows * h);
      const Extent row = index / h, j = index % h, b = row / t_count, t = row % t_count;
      Dot sum = dot(
          input.key, x, [&](Extent k) { return row * d + k; }, names.weight.key, w,
          [&](Extent k) { return k * h + j; }, d);
      CellProvenance out{names.output.label + indices({b, t, j}), {sum.left, sum.right}, {}, {}};
      out.expression =
          out.target + " = " + sum.terms + " = " + format_prose(output_of(primary, branch).values()[index]);
      out.description = "Row " + row_name(b, t) + " of X times column " + std::to_string(j) + " of " +
                        names.weight.label + ".";
      return out;
    }
    if (tensor == names.gradient.key) {
      // W̄_Q[k,j] = Σ_r X[r,k] · U_Q[r,j] over the flattened rows r = (b,t)
      if (index >= d * h) return out_of_range(d * h);
      const Extent k = index / h, j = index % h;
      const std::vector<double>& u = upstream_of(r, branch).values();
      Dot sum = dot(
          input.key, x, [&](Extent row) { return row * d + k; }, names.upstream.key, u,
          [&](Extent row) { return row * h + j; }, rows);
      CellProvenance out{names.gradient.label + indices({k, j}), {sum.left, sum.right}, {}, {}};
      out.expression = out.target + " = " + sum.terms + " = " +
                       format_prose(gradient_of(*primary.gradients, branch).values()[index]);
      // Not a forward product (no weight column in it): X's column k against the upstream's column j.
      out.description = "Column " + std::to_string(k) + " of X dotted with column " + std::to_string(j) +
                        " of " + names.upstream.label + ": one product per batch item and token, summed.";
      return out;
    }
  }
  const TensorName& scores = tensor_name<TensorRole::Scores>();
  if (tensor == scores.key) {
    // S[b,i,j] = Σ_k Q[b,i,k] · K[b,j,k]: the query of token i dotted with the key of token j
    const Extent cells = r.input.shape()[0] * t_count * t_count;
    if (index >= cells) return out_of_range(cells);
    const Extent b = index / (t_count * t_count), i = index / t_count % t_count, j = index % t_count;
    const Extent query_row = b * t_count + i, key_row = b * t_count + j;
    Dot sum = dot(
        tensor_name<TensorRole::Output>(0).key, primary.query.values(),
        [&](Extent k) { return query_row * h + k; }, tensor_name<TensorRole::Output>(1).key,
        primary.key.values(), [&](Extent k) { return key_row * h + k; }, h);
    CellProvenance out{scores.label + indices({b, i, j}), {sum.left, sum.right}, {}, {}};
    out.expression = out.target + " = " + sum.terms + " = " + format_prose(primary.scores.values()[index]);
    out.description = "Query of token " + std::to_string(i) + " (row " + row_name(b, i) +
                      " of Q) dotted with key of token " + std::to_string(j) + " (row " + row_name(b, j) +
                      " of K).";
    return out;
  }
  if (tensor == tensor_name<TensorRole::InputGradient>().key) {
    // X̄[b,t,k] = Σ_j U_Q[b,t,j] W_Q[k,j] + Σ_j U_K[b,t,j] W_K[k,j] + Σ_j U_V[b,t,j] W_V[k,j]
    if (index >= rows * d) return out_of_range(rows * d);
    const Extent row = index / d, k = index % d, b = row / t_count, t = row % t_count;
    CellProvenance out{tensor_name<TensorRole::InputGradient>().label + indices({b, t, k}), {}, {}, {}};
    std::string sum;
    for (std::size_t branch = 0; branch < 3; ++branch) {
      const BranchNames names = branch_names(branch);
      Dot path = dot(
          names.upstream.key, upstream_of(r, branch).values(), [&](Extent j) { return row * h + j; },
          names.weight.key, weight_of(r, branch).values(), [&](Extent j) { return k * h + j; }, h);
      out.sources.push_back(std::move(path.left));
      out.sources.push_back(std::move(path.right));
      sum += (branch > 0 ? " + (" : "(") + path.terms + ")";
    }
    out.expression =
        out.target + " = " + sum + " = " + format_prose(primary.gradients->input.values()[index]);
    out.description = "Three paths back into X: row " + row_name(b, t) + " of U_Q, U_K and U_V times row " +
                      std::to_string(k) + " of W_Q, W_K and W_V.";
    return out;
  }
  return fail(
      LessonError{ErrorKind::Arguments,
                  "tensor must be query, key, value, scores, input_gradient or a *_weight_gradient, got \"" +
                      shortened(tensor) + "\"",
                  "tensor"});
}

}  // namespace qkv
