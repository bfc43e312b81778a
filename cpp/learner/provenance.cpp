#include "learner/provenance.hpp"

#include "response/tensor_names.hpp"
#include "text/format.hpp"
#include "text/template.hpp"

namespace qkv {

std::string written_factor(double value) {
  const std::string text = format_prose(value);
  return value < 0 || text.rfind("\xE2\x88\x92", 0) == 0 ? fill("({0})", {text}) : text;
}

std::string written_products(const std::vector<double>& left, const std::vector<double>& right) {
  std::string out;
  for (std::size_t i = 0; i < left.size(); ++i) {
    if (i > 0) out += " + ";
    out += fill("{0}\xC2\xB7{1}", {written_factor(left[i]), written_factor(right[i])});
  }
  return out.empty() ? "(empty sum)" : out;
}

namespace {

std::string indices(std::initializer_list<Extent> at) {
  std::string out;
  for (Extent i : at) (out += out.empty() ? "" : ",") += std::to_string(i);
  return fill("[{0}]", {out});
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

// "Q[0,1,0] = 1·2 + … = 4": a cell, its sum written out, and the value the core computed.
std::string equation(const std::string& target, const std::string& terms, double value) {
  return fill("{0} = {1} = {2}", {target, terms, format_prose(value)});
}

std::string row_name(Extent b, Extent t) { return fill("b{0} t{1}", {std::to_string(b), std::to_string(t)}); }

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
                            fill("{0} has {1} cells, so cell {2} does not exist",
                                 {tensor, std::to_string(size), std::to_string(index)}),
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
      out.expression = equation(out.target, sum.terms, output_of(primary, branch).values()[index]);
      out.description = fill("Row {0} of X times column {1} of {2}.",
                             {row_name(b, t), std::to_string(j), names.weight.label});
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
      out.expression =
          equation(out.target, sum.terms, gradient_of(*primary.gradients, branch).values()[index]);
      // Not a forward product (no weight column in it): X's column k against the upstream's column j.
      out.description =
          fill("Column {0} of X dotted with column {1} of {2}: one product per batch item and token, summed.",
               {std::to_string(k), std::to_string(j), names.upstream.label});
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
    out.expression = equation(out.target, sum.terms, primary.scores.values()[index]);
    out.description = fill("Query of token {0} (row {1} of Q) dotted with key of token {2} (row {3} of K).",
                           {std::to_string(i), row_name(b, i), std::to_string(j), row_name(b, j)});
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
      sum += fill("{0}({1})", {branch > 0 ? " + " : "", path.terms});
    }
    out.expression = equation(out.target, sum, primary.gradients->input.values()[index]);
    out.description =
        fill("Three paths back into X: row {0} of U_Q, U_K and U_V times row {1} of W_Q, W_K and W_V.",
             {row_name(b, t), std::to_string(k)});
    return out;
  }
  return fail(LessonError{
      ErrorKind::Arguments,
      fill("tensor must be query, key, value, scores, input_gradient or a *_weight_gradient, got \"{0}\"",
           {shortened(tensor)}),
      "tensor"});
}

}  // namespace qkv
