#include "learner/exercises.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "attention/value_preview.hpp"
#include "chapter26/score_changes.hpp"
#include "learner/provenance.hpp"
#include "response/tensor_names.hpp"
#include "text/format.hpp"

namespace qkv {
namespace {

std::string of_total(std::size_t count, std::size_t total) {
  return std::to_string(count) + " of " + std::to_string(total);
}

// A score to two decimals, with the page's minus sign ("−7.67").
std::string score_text(double value) { return with_minus_sign(format_fixed(value, 2)); }

// Row `token` of batch item 0 of a [B, T, H] tensor (empty when there is no such row).
std::vector<double> first_batch_row(const Tensor& tensor, std::size_t token) {
  if (tensor.shape()[0] == 0 || token >= tensor.shape()[1]) return {};
  const Extent width = tensor.shape()[2];
  const auto begin = tensor.values().begin() + static_cast<std::ptrdiff_t>(token * width);
  return std::vector<double>(begin, begin + static_cast<std::ptrdiff_t>(width));
}

// "₀", "₁₂": a token index as the prose subscripts it.
std::string subscript(std::size_t index) {
  static const char* const digits[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
  const std::string decimal = std::to_string(index);
  std::string out;
  for (char digit : decimal) out += digits[digit - '0'];
  return out;
}

// "a", "a and b", "a, b and c".
std::string rows_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

Blank choice(std::string right) { return Blank{AnswerKind::Choice, "", std::move(right)}; }
Blank count(Extent right, Extent max) { return Blank{AnswerKind::Count, "", "", right, max}; }
Blank shape(std::string label, Shape right) {
  return Blank{AnswerKind::Shape, std::move(label), "", 0, 0, std::move(right)};
}
// A vector blank that is `row` (named `row_name`) times the weight named `weight_name`.
Blank row_times(std::string label, std::vector<double> right, std::string row_name, std::vector<double> row,
                std::string weight_name) {
  Blank out{AnswerKind::Vector, std::move(label), "", 0, 0, {}, std::move(right)};
  out.row_name = std::move(row_name);
  out.row = std::move(row);
  out.weight_name = std::move(weight_name);
  return out;
}
// A count blank with the slips that have their own hint (a slip equal to the answer is left out).
Blank count(Extent right, Extent max, std::vector<std::pair<Extent, std::string>> slips) {
  Blank out = count(right, max);
  for (auto& slip : slips)
    if (slip.first != right) out.count_slips.push_back(std::move(slip));
  return out;
}

// What a row peaking on its own token looks like in the self-score tables.
const char* kOwnPeak =
    "A row peaks on its own token when its largest score sits on the diagonal (row i, column i): the ▲ "
    "that marks the row's maximum is on the ◆ of its own token.";

// Where the diagonal stands in one score matrix (named `scores`), in words, without a count (a later
// question asks for it): "every row of X Xᵀ peaks on its own token", or the first row that does not.
std::string diagonal_story(const ScoreSummary& summary, std::size_t tokens, const std::string& scores) {
  if (summary.diagonal_rows.size() == tokens) return "every row of " + scores + " peaks on its own token";
  std::string story = "not every row of " + scores + " peaks on its own token";
  for (std::size_t row = 0; row < summary.argmax.size(); ++row) {
    if (summary.argmax[row] != row) {
      story += ": row " + std::to_string(row) + " peaks at token " + std::to_string(summary.argmax[row]) +
               " instead";
      break;
    }
  }
  return story;
}

// Row `row` of batch item 0 of the scores [B, T, T], or an empty list when there is no such row.
std::vector<double> score_row(const Tensor& scores, std::size_t row) {
  if (scores.rank() != 3 || row >= scores.shape()[1] || scores.shape()[0] == 0) return {};
  return first_batch_row(scores, row);
}

// W_K doubled, and why the layer has no bias: both computed on the fixture by the core.
void append_score_change_exercises(const ChapterEvidence& e, std::vector<Exercise>& out) {
  auto doubled = double_key_weight(e.request, e.primary);
  if (doubled) {
    const bool as_taught = doubled->key_doubled && doubled->scores_doubled && doubled->query_unchanged &&
                           doubled->value_unchanged;
    out.push_back(
        {"ch26-double-key-weight",
         {"key-only", "key-and-scores", "all-double", "scores-quadruple"},
         {choice(as_taught ? "key-and-scores" : "key-only")},
         {{"key-only", "A score q_i·k_j is a sum of products, each with one factor from k_j."},
          {"all-double", "Q is X times W_Q and V is X times W_V: which of them reads W_K?"},
          {"scores-quadruple", "Only the keys double; the queries in q_i·k_j stay as they were."}},
         "",
         "The core doubled every entry of W_K: k₀ went from " +
             vector_text(first_batch_row(e.primary.key, 0)) + " to " +
             vector_text(first_batch_row(doubled->key, 0)) + ", and token 0's scores from " +
             vector_text(score_row(e.primary.scores, 0)) + " to " +
             vector_text(score_row(doubled->scores, 0)) + ". K " +
             (doubled->key_doubled ? "doubled" : "did not double") + " and every score " +
             (doubled->scores_doubled ? "doubled" : "did not double") + ", entry for entry; Q " +
             (doubled->query_unchanged ? "and V stayed the same bit for bit" : "changed") +
             ". Each score q_i·k_j has one factor from the key in every product. Try it on the diagram: "
             "double each entry of W_K and watch K and S."});
  }
  const std::vector<double> ones(e.head_width, 1.0);
  auto bias = bias_shifts(e.primary, ones, ones);
  if (!bias) return;
  const std::string b = vector_text(ones);
  out.push_back(
      {"ch26-key-bias",
       {"per-key-shift", "unchanged", "same-shift"},
       {choice(bias->key_shift_same_across_row ? "same-shift" : "per-key-shift")},
       {{"per-key-shift",
         "Write the score with the bias: q_i·(k_j + b_K) = q_i·k_j + q_i·b_K. Which "
         "part depends on j?"},
        {"unchanged", "Write the score with the bias: q_i·(k_j + b_K) = q_i·k_j + q_i·b_K."}},
       "",
       "q_i·(k_j + b_K) = q_i·k_j + q_i·b_K: the added part depends on the query only. The core added b_K "
       "= " +
           b + " to every key: token 0's scores went from " + vector_text(score_row(e.primary.scores, 0)) +
           " to " + vector_text(score_row(bias->key_bias_scores, 0)) + ", each shifted by " +
           vector_text(score_row(bias->key_bias_shift, 0)) + " (" +
           (bias->key_shift_same_across_row ? "one shift per row" : "not one shift per row") +
           "). Softmax, the next lesson's step, gives a row the same probabilities when one number is added "
           "to all its scores, so a key bias changes nothing attention computes from them. A query bias is "
           "different: b_Q = " +
           b +
           " added to every query shifts S[b,i,j] by b_Q·k_j, which depends on the "
           "key; token 0's scores shifted by " +
           vector_text(score_row(bias->query_bias_shift, 0)) +
           (bias->query_shift_differs_across_row ? ", a preference for some keys whatever the query."
                                                 : ".")});
}

// The chapter's numbers the questions are about, the tokens' words, and the questions' name for them
// ("the frozen fixture").
struct Chapter {
  const ChapterEvidence& e;
  std::vector<std::string> words;  // [T]
  std::string setting;
  bool has_first_token() const { return e.request.input.shape()[0] > 0 && !words.empty(); }
  std::string word(std::size_t token) const { return "“" + words[token] + "”"; }
};

// The preview's prediction: what dividing token 0's scores by √d_head does to its softmax weights, judged
// by the core from the fixture's row (value_preview): nothing (equal bits), or the largest weight lower
// (flattens) or higher (sharpens). The order never changes: each score is divided by the same positive
// number.
Exercise preview_weights_exercise(const Chapter& c) {
  const ChapterEvidence& e = c.e;
  const auto preview = value_preview(e.primary.query, e.primary.key, e.primary.value, 0);
  const auto largest = [](const std::vector<double>& w) { return *std::max_element(w.begin(), w.end()); };
  const double scaled = preview ? largest(preview->weights) : 0.0,
               unscaled = preview ? largest(preview->unscaled_weights) : 0.0;
  const std::string answer = scaled < unscaled ? "flattens" : scaled > unscaled ? "sharpens" : "nothing";
  const auto two_decimals = [](const std::vector<double>& values) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i) text += (i > 0 ? ", " : "") + format_fixed(values[i], 2);
    return text + "]";
  };
  const std::string rows = preview ? "Token 0's weights with the division " + two_decimals(preview->weights) +
                                         ", without it " + two_decimals(preview->unscaled_weights)
                                   : std::string("No row: an axis is empty");
  std::vector<std::pair<std::string, std::string>> hints;
  hints.push_back(
      {"reorders",
       "Every score is divided by the same positive number: can a larger score become the smaller?"});
  for (const char* option : {"flattens", "sharpens", "nothing"})
    if (answer != option)
      hints.push_back(
          {option,
           "Divide token 0's scores by √d_head and compare the gaps between them before the softmax."});
  Exercise out{
      "ch26-preview-weights",
      {"reorders", "flattens", "sharpens", "nothing"},
      {choice(answer)},
      hints,
      "",
      rows + ". Dividing by √d_head = " + format_prose(preview ? preview->scale : 0.0) +
          " keeps the order of the scores" +
          (answer == "flattens" ? " and shrinks the gaps between them, so the largest weight goes from " +
                                      format_fixed(unscaled, 2) + " down to " + format_fixed(scaled, 2) + "."
           : answer == "sharpens" ? " and widens the gaps between them, so the largest weight goes from " +
                                        format_fixed(unscaled, 2) + " up to " + format_fixed(scaled, 2) + "."
                                  : " and here leaves the weights as they were.")};
  out.question =
      "A preview of the next lesson. There, token 0’s scores are divided by √d_head before the softmax turns "
      "them into weights. In " +
      c.setting + ", what does the division do to token 0’s weights?";
  if (!preview)
    out.not_graded = "Token 0 has no scores here: X has shape " + shape_text(e.request.input.shape()) +
                     ", with an empty axis. Give the batch and the tokens at least one each.";
  return out;
}

// The widths as the prose names them: d_model and d_head.
struct WidthTexts {
  std::string d, h;
};
WidthTexts width_texts(const ChapterEvidence& e) {
  return {std::to_string(e.model_width), std::to_string(e.head_width)};
}

// The shape the fixture's layer gives for a [4, 7, d_model] input.
Exercise output_shapes_exercise(const Chapter& c) {
  const ChapterEvidence& e = c.e;
  const ProjectionRequest& r = e.request;
  const auto [d, h] = width_texts(e);
  // Run the fixture's layer on a [4, 7, d_model] input and read the shape it gives.
  Shape batch_shape;
  if (auto layer = projections_from_weights(r.query_weight, r.key_weight, r.value_weight)) {
    if (auto input = TensorValue::constant(Tensor::zeros({4, 7, e.model_width}).value()))
      if (auto outputs = layer->forward(*input)) batch_shape = outputs->query.shape();
  }
  Exercise out{"ch26-output-shapes",
               {},
               {shape("", batch_shape)},
               {},
               "Only the last axis changes: it becomes d_head.",
               "The core ran the layer on a [4, 7, " + d + "] input: each of Q, K and V came out " +
                   shape_text(batch_shape) + ". Each branch maps the last axis, " + d + " features to " + h +
                   "; the batch and token axes pass through."};
  out.question = "X has shape [4, 7, " + d + "] and the head width is " + h +
                 ". What shape does each of Q, K and V have?";
  return out;
}

// q₀, k₀ and v₀: token 0's row times each weight; not graded when there is no token 0.
Exercise first_token_exercise(const Chapter& c) {
  const ChapterEvidence& e = c.e;
  const std::vector<double> x0 = first_batch_row(e.request.input, 0);
  const std::vector<double> q0 = first_batch_row(e.primary.query, 0), k0 = first_batch_row(e.primary.key, 0),
                            v0 = first_batch_row(e.primary.value, 0);
  Exercise out{"ch26-first-token",
               {},
               {row_times("q₀", q0, "x₀", x0, tensor_name<TensorRole::Weight>(0).label),
                row_times("k₀", k0, "x₀", x0, tensor_name<TensorRole::Weight>(1).label),
                row_times("v₀", v0, "x₀", x0, tensor_name<TensorRole::Weight>(2).label)},
               {},
               "",
               "Row 0 of each output is the first token x₀ = " + vector_text(x0) +
                   " times that branch's weight: coordinate j is x₀ dotted with column j. The three weights "
                   "differ, so the three views differ."};
  if (!c.has_first_token()) {
    out.question = "For " + c.setting + ", compute q₀, k₀ and v₀: the first token times W_Q, W_K and W_V.";
    out.not_graded = "There is no first token here: X has shape " + shape_text(e.request.input.shape()) +
                     ", with an empty axis. Give the batch and the tokens at least one each.";
    return out;
  }
  out.question = "For " + c.setting + ", compute q₀, k₀ and v₀: the first token " + c.word(0) +
                 ", x₀ = " + vector_text(x0) + ", times W_Q, W_K and W_V.";
  return out;
}

// Which key token 0's query matches best, of all the keys of batch item 0. The options name k₀, k₁ and
// their tie: not graded when another key is best or shares the best score, or there is no second token.
struct BestKey {
  std::string answer;      // an option id, or empty
  std::string not_graded;  // why, when `answer` is empty
};
BestKey best_key(const Chapter& c, const std::vector<double>& row, const std::string& sums) {
  if (!c.has_first_token() || row.size() < 2)
    return {"", "There is no second key to compare with here: X has shape " +
                    shape_text(c.e.request.input.shape()) + ". Give the lesson at least two tokens."};
  const double best = *std::max_element(row.begin(), row.end());
  std::vector<std::size_t> winners;
  for (std::size_t j = 0; j < row.size(); ++j)
    if (row[j] == best) winners.push_back(j);
  if (winners == std::vector<std::size_t>{0}) return {"token-0", ""};
  if (winners == std::vector<std::size_t>{1}) return {"token-1", ""};
  if (winners == std::vector<std::size_t>{0, 1}) return {"tie", ""};
  std::vector<std::string> names;
  for (std::size_t j : winners) names.push_back("k" + subscript(j) + " (" + c.word(j) + ")");
  return {"",
          sums + ": " +
              (winners.size() == 1 ? names[0] + " matches best"
                                   : rows_list(names) + " tie for the best score, " + format_prose(best)) +
              ", which no option names. Change a number so that k₀ or k₁ (or both alike) wins."};
}

Exercise best_key_exercise(const Chapter& c) {
  const ChapterEvidence& e = c.e;
  const std::vector<double> q0 = first_batch_row(e.primary.query, 0);
  const std::vector<double> row =
      c.has_first_token() ? score_row(e.primary.scores, 0) : std::vector<double>{};
  // Token 0's query against every key of batch item 0: the sums written out, and the scores the core
  // computed for them.
  std::string sums;
  for (std::size_t j = 0; j < row.size(); ++j)
    sums += std::string(j == 0                ? ""
                        : j + 1 == row.size() ? " and "
                                              : ", ") +
            "q₀·k" + subscript(j) + " = " + written_products(q0, first_batch_row(e.primary.key, j));
  const std::string all_sums = sums + ", with q₀ = " + vector_text(q0);
  const BestKey verdict = best_key(c, row, sums);
  const bool two = row.size() <= 2;
  const std::string work_out = two ? "Work out both sums: " : "Work out each sum: ";
  const std::string best = verdict.answer;
  std::vector<std::pair<std::string, std::string>> best_key_hints;
  for (const char* option : {"token-0", "token-1"})
    if (best != option)
      best_key_hints.push_back(
          {option, work_out + all_sums + (two ? ". Which is larger?" : ". Which is largest?")});
  if (best != "tie")
    best_key_hints.push_back({"tie", "A tie needs q₀·k₀ = q₀·k₁. " + work_out + all_sums + "."});
  std::string scores;
  for (std::size_t j = 0; j < row.size(); ++j)
    scores += std::string(j == 0 ? "" : ", ") + "q₀·k" + subscript(j) + " = " +
              written_products(q0, first_batch_row(e.primary.key, j)) + " = " + format_prose(row[j]);
  Exercise out{
      "ch26-best-key",
      {"token-0", "token-1", "tie"},
      {choice(best.empty() ? "tie" : best)},
      best_key_hints,
      "",
      "The score of a query with a key is their dot product: " + scores + ". " +
          (best == "tie"
               ? std::string(two ? "The two scores are equal: token 0's query matches both keys alike."
                                 : "k₀ and k₁ share the best score: token 0's query matches both keys alike.")
           : best.empty()
               ? verdict.not_graded
               : "The " + std::string(two ? "larger" : "largest") + " score is with k" +
                     std::string(best == "token-0" ? "₀" : "₁") + ", so token 0's query (" + c.word(0) +
                     ") matches the key of " +
                     (best == "token-0" ? "its own token" : "token 1 (" + c.word(1) + ")") + " best.") +
          " These are raw scores: not yet scaled by 1/√d_head, and not yet turned into probabilities."};
  out.not_graded = verdict.not_graded;
  if (!c.has_first_token() || row.size() < 2) {
    out.question = "A query matches a key well when their dot product is large. In " + c.setting +
                   ", which key does token 0’s query match best?";
    return out;
  }
  const bool more = row.size() > 2;
  out.question = "A query matches a key well when their dot product is large. In " + c.setting + ", which " +
                 (more ? "of the " + std::to_string(row.size()) + " keys" : std::string("key")) +
                 " does token 0’s (" + c.word(0) + ") query match best?";
  out.choice_texts = {{"token-0", "Its own key, k₀ (" + c.word(0) + ")"},
                      {"token-1", "The key of token 1, k₁ (" + c.word(1) + ")"},
                      {"tie", more ? "k₀ and k₁ equally, more than any other key" : "Both keys equally"}};
  return out;
}

// Does changing W_Q change K or V?
Exercise change_query_only_exercise(const ChapterEvidence& e) {
  return {"ch26-change-query-only",
          {"yes", "no"},
          {choice(e.bitwise->key_unchanged && e.bitwise->value_unchanged ? "no" : "yes")},
          {{"yes", "K is computed from X and W_K only, V from X and W_V only: which of them reads W_Q?"}},
          "",
          std::string("K and V are computed from X, W_K and W_V only. The core added 1 to W_Q[0,0]: Q ") +
              (e.bitwise->query_changed ? "changed" : "did not change") + ", while K and V stayed " +
              (e.bitwise->key_unchanged && e.bitwise->value_unchanged ? "the same bit for bit."
                                                                      : "not the same.")};
}

// The layer's trainable scalars.
Exercise parameter_count_exercise(const ChapterEvidence& e) {
  const auto [d, h] = width_texts(e);
  const Extent per_weight = e.model_width * e.head_width;
  const std::string per_weight_text = std::to_string(per_weight);
  Exercise out = {
      "ch26-parameter-count",
      {},
      {count(e.primary.parameter_count, 1000000000,
             {{per_weight, per_weight_text + " is one weight's entries; the layer has W_Q, W_K and W_V"},
              {2 * per_weight, "that is two weights' entries; the layer has three, W_Q, W_K and W_V"},
              {e.primary.parameter_count + 3 * e.head_width,
               "that counts a bias of " + h + " per weight; this layer has none"}})},
      {},
      "Count the entries of one d_model × d_head weight (" + d + " rows, " + h +
          " columns), then multiply by the number of weights; there is no bias.",
      "Three weights of " + d + " × " + h + " = " + std::to_string(per_weight) +
          " entries each, and no bias: " + std::to_string(e.primary.parameter_count) +
          " trainable scalars, as the layer itself reports."};
  out.question = "How many trainable scalars do three bias-free [" + d + ", " + h + "] weights hold?";
  return out;
}

// The output shapes for an empty batch and an empty token axis.
Exercise empty_axes_exercise(const ChapterEvidence& e) {
  const auto [d, h] = width_texts(e);
  Exercise out{"ch26-empty-axes",
               {},
               {shape("for " + shape_text(e.empty_batch.input), e.empty_batch.query),
                shape("for " + shape_text(e.empty_token.input), e.empty_token.query)},
               {},
               "An empty axis is still an axis: only the last extent changes.",
               "An empty batch or token axis is a valid shape: the layer gave " +
                   shape_text(e.empty_batch.query) + " for " + shape_text(e.empty_batch.input) + " and " +
                   shape_text(e.empty_token.query) + " for " + shape_text(e.empty_token.input) +
                   ". The last axis still maps " + d + " to " + h + ", and backward still runs."};
  out.question = "What shape does each branch give for an input of shape " + shape_text(e.empty_batch.input) +
                 ", and for " + shape_text(e.empty_token.input) + "?";
  for (const auto& probe : {e.empty_batch, e.empty_token})
    out.blank_labels.push_back("Output shape for " + shape_text(probe.input));
  const std::string no_error =
      "The layer raises no error here: an axis of extent 0 is still an axis, and the layer returns a shape "
      "for it. Write that shape as [B, T, d_head].";
  for (const char* word : {"error", "an error", "exception", "none", "nothing", "fails", "it fails"})
    out.word_hints.push_back({word, no_error});
  return out;
}

// Why the layer refuses a rank-two input.
Exercise rank_two_exercise(const ChapterEvidence& e) {
  const auto [d, h] = width_texts(e);
  return {
      "ch26-rank-two",
      {"cannot-multiply", "needs-bias", "explicit-axes"},
      {choice(e.rank.expected_variant ? "explicit-axes" : "cannot-multiply")},
      {{"cannot-multiply", "A [T, " + d + "] matrix times a [" + d + ", " + h +
                               "] weight is a valid product: the refusal is this layer's choice."},
       {"needs-bias", "This layer has no bias at all, and a bias would not change which shapes it accepts."}},
      "",
      "A plain Linear layer would accept [T, d_model]; this layer refuses it on purpose, so that batch "
      "and token axes can never be confused. Its own words: \"" +
          e.rank.message + "\"."};
}

// Must d_model be divisible by d_head here?
Exercise divisibility_exercise(const Chapter& c) {
  const ChapterEvidence& e = c.e;
  const auto [d, h] = width_texts(e);
  const bool indivisible_accepted = e.model_width % e.head_width != 0;
  return {"ch26-divisibility",
          {"yes", "no"},
          {choice(indivisible_accepted ? "no" : "yes")},
          {{"yes", "Look at the widths of " + c.setting + ": d_model = " + d + ", d_head = " + h + "."}},
          "",
          "In " + c.setting + ", d_model = " + d + " and d_head = " + h + ", and the layer " +
              (indivisible_accepted ? "accepts it" : "is used with them") +
              ". Divisibility matters only when multi-head attention splits d_model into h heads of d_head "
              "features each, a later step: there d_model = h · d_head, so d_model must be a multiple of "
              "d_head."};
}

// Which earlier attention read two streams, and which reads one (no values: the same for every fixture).
Exercise history_exercise() {
  return {"ch26-history",
          {"additive-one-self-two", "additive-two-self-one", "both-two"},
          {choice("additive-two-self-one")},
          {{"additive-one-self-two", "Additive attention compares a decoder state with encoder annotations."},
           {"both-two", "Self-attention takes queries, keys and values from one and the same sequence."}},
          "",
          "Additive (Bahdanau-style) attention scores the encoder's annotations against the previous decoder "
          "state: two streams. Self-attention feeds one previous-layer sequence to all three roles."};
}

// What these projections do not do yet (no values either).
Exercise still_missing_exercise() {
  return {
      "ch26-still-missing",
      {"fourth-projection", "scores-probabilities-mixture", "bias"},
      {choice("scores-probabilities-mixture")},
      {{"fourth-projection", "Three views are all attention needs; what is missing is how they are used."},
       {"bias",
        "A bias is optional (this lesson leaves it out); what is missing is how the views are used."}},
      "",
      "These projections compare nothing yet. Next, each query is dotted with every key to give scores, "
      "a softmax turns each row of scores into probabilities, and those weights mix the values."};
}

// Which gradients change when U_K changes, as the core measured.
Exercise upstream_key_exercise(const ChapterEvidence& e) {
  // U_K[0] + 1 and backward again (ChapterEvidence): the gradients that changed, bit for bit.
  const bool key_only = e.bitwise->key_gradient_changed && e.bitwise->query_gradient_unchanged &&
                        e.bitwise->value_gradient_unchanged;
  const std::string upstream_answer = key_only                              ? "key-only"
                                      : e.bitwise->value_gradient_unchanged ? "key-and-query"
                                                                            : "all-three";
  const std::pair<std::string, std::string> upstream_hints[] = {
      {"key-only", "Read W̄_Q = Xᵀ U_Q and W̄_V = Xᵀ U_V again, and what the core measured."},
      {"all-three", "W̄_Q = Xᵀ U_Q and W̄_V = Xᵀ U_V: does either of them read U_K?"},
      {"key-and-query",
       "W̄_Q = Xᵀ U_Q reads X and U_Q only. Which tensor changed, and which gradient reads it?"}};
  std::vector<std::pair<std::string, std::string>> upstream_key_hints;
  for (const auto& hint : upstream_hints)
    if (hint.first != upstream_answer) upstream_key_hints.push_back(hint);
  const auto measured = [](bool changed) {
    return std::string(changed ? "changed" : "stayed the same bit for bit");
  };
  return {"ch26-upstream-key",
          {"key-only", "all-three", "key-and-query"},
          {choice(upstream_answer)},
          upstream_key_hints,
          "",
          "Each weight's gradient reads only its own branch's upstream: W̄_Q = Xᵀ U_Q, W̄_K = Xᵀ U_K, "
          "W̄_V = Xᵀ U_V. The core added 1 to U_K[0,0,0] and ran backward again: W̄_K " +
              measured(e.bitwise->key_gradient_changed) + ", W̄_Q " +
              measured(!e.bitwise->query_gradient_unchanged) + ", W̄_V " +
              measured(!e.bitwise->value_gradient_unchanged) + ", and X̄ " +
              measured(e.bitwise->input_gradient_changed) +
              (e.bitwise->input_gradient_changed
                   ? ": X feeds all three branches, so its gradient sums all three paths."
                   : ".")};
}

std::vector<Exercise> chapter26_exercises(const Chapter& c) {
  const ChapterEvidence& e = c.e;
  std::vector<Exercise> out = {
      output_shapes_exercise(c),     first_token_exercise(c),     best_key_exercise(c),
      change_query_only_exercise(e), parameter_count_exercise(e), empty_axes_exercise(e),
      rank_two_exercise(e),          divisibility_exercise(c),    history_exercise(),
      still_missing_exercise(),      upstream_key_exercise(e)};
  append_score_change_exercises(e, out);
  out.push_back(preview_weights_exercise(c));
  return out;
}

// Question 16's two given vectors (exercise-prose.json states them): is x·x ≥ x·y guaranteed by the
// lengths alone, and what do the dot products say?
struct GivenPair {
  bool guaranteed;
  std::string explanation;
};
GivenPair given_pair() {
  const std::vector<double> x = {4, 0}, y = {1, 5};
  const double xx = x[0] * x[0] + x[1] * x[1], xy = x[0] * y[0] + x[1] * y[1];
  const double x_length = std::sqrt(xx), y_length = std::sqrt(y[0] * y[0] + y[1] * y[1]);
  const bool guaranteed = y_length <= x_length;
  const std::string lengths = "|x| = " + score_text(x_length) + " and |y| = " + score_text(y_length);
  const std::string products =
      "x·x = " + score_text(xx) + " and x·y = " + score_text(xy) + " (x = [4, 0], y = [1, 5])";
  if (guaranteed)
    return {true, lengths + ": y is no longer than x, so x·y ≤ |x| |y| ≤ |x|² = x·x. Here " + products + "."};
  return {false, lengths + ": y is longer, so Cauchy–Schwarz bounds x·y only by |x| |y| = " +
                     score_text(x_length * y_length) +
                     ", more than x·x. Nothing is guaranteed; here it holds "
                     "anyway: " +
                     products + "."};
}

// Question 14's three projected vectors with tied weights (exercise-prose.json states them): which rows
// are sure to peak on their own vector, and which do.
struct GivenTied {
  std::string answer;  // every-row, conditional or avoids
  std::string explanation;
};
GivenTied given_tied() {
  const std::vector<std::string> names = {"a", "b", "c"};
  const std::vector<std::vector<double>> rows = {{4, 0}, {0, 1}, {3, -1}};
  const auto dot = [](const std::vector<double>& u, const std::vector<double>& v) {
    return u[0] * v[0] + u[1] * v[1];
  };
  std::vector<double> lengths;
  for (const auto& row : rows) lengths.push_back(std::sqrt(dot(row, row)));
  std::vector<std::size_t> sure;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    bool longest = true;
    for (std::size_t j = 0; j < rows.size(); ++j)
      if (j != i && (lengths[j] > lengths[i] || rows[j] == rows[i])) longest = false;
    if (longest) sure.push_back(i);
  }
  std::string story = "|a| = " + score_text(lengths[0]) + ", |b| = " + score_text(lengths[1]) +
                      ", |c| = " + score_text(lengths[2]) + ". ";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::size_t peak = 0;
    std::string scores;
    for (std::size_t j = 0; j < rows.size(); ++j) {
      if (dot(rows[i], rows[j]) > dot(rows[i], rows[peak])) peak = j;
      scores += (j == 0 ? "" : ", ") + names[i] + "·" + names[j] + " = " + score_text(dot(rows[i], rows[j]));
    }
    const bool promised = std::find(sure.begin(), sure.end(), i) != sure.end();
    story += "Row " + names[i] + " (" + scores + ") peaks on " + names[peak] +
             (promised    ? ": promised, as the longest vector, equal to no other. "
              : peak == i ? ": not promised, it happens. "
                          : ": nothing was promised. ");
  }
  const std::string answer = sure.size() == rows.size() ? "every-row"
                             : sure.empty()             ? "avoids"
                                                        : "conditional";
  return {answer, story +
                      "Tied scores are dot products of the projected vectors, so the longest one is sure "
                      "to peak on itself, and the others are not."};
}

std::vector<Exercise> self_score_exercises(const SelfScoreResult& now, std::int64_t seed,
                                           const SelfScoreResult& module) {
  const std::string setting = "At seed " + std::to_string(seed) + " with " + std::to_string(now.tokens) +
                              " tokens of width " + std::to_string(now.dim);
  const bool all_none = now.none.diagonal_rows.size() == now.tokens;
  const bool all_tied = now.tied.diagonal_rows.size() == now.tokens;
  const std::size_t n = module.tokens;
  const GivenPair given = given_pair();
  const GivenTied tied = given_tied();

  // The last row of the separate scores that peaks on itself, and what its own score beats.
  std::string separate_story;
  if (!module.separate.diagonal_rows.empty()) {
    const std::size_t row = module.separate.diagonal_rows.back();
    std::vector<double> others;
    for (std::size_t j = 0; j < n; ++j)
      if (j != row) others.push_back(module.separate.scores[row * n + j]);
    std::sort(others.begin(), others.end(), std::greater<double>());
    separate_story = " In row " + std::to_string(row) + " the own score " +
                     score_text(module.separate.scores[row * n + row]) + " beats ";
    for (std::size_t i = 0; i < others.size(); ++i)
      separate_story += (i == 0 ? "" : i + 1 == others.size() ? " and " : ", ") + score_text(others[i]);
    separate_story += ".";
  }
  std::vector<Exercise> out;
  out.push_back({"qkv04-exercise-1",
                 {"yes", "no"},
                 {choice(all_none ? "yes" : "no")},
                 {},
                 "Open No projection (scores = X Xᵀ): does every row's ▲ (its largest score) sit on the ◆ of "
                 "its own token?",
                 setting + ", " + diagonal_story(now.none, now.tokens, "X Xᵀ") +
                     ". Cauchy–Schwarz guarantees it for " + rows_text(now.none.guaranteed_rows) +
                     " (at least as long as every other row, and equal to none)."});
  out.push_back({"qkv04-exercise-2",
                 {"any-longer", "orthogonal", "never"},
                 {choice("orthogonal")},
                 {{"any-longer", "A longer y can point away from x; then x·y is small or even negative."},
                  {"never", "Try y = x."}},
                 "",
                 "x·y = x·x means x·(y − x) = 0: y − x is orthogonal to x. y = x is one such vector; among "
                 "vectors as "
                 "long as x it is the only one, the equality case of Cauchy–Schwarz."});
  out.push_back(
      {"qkv04-exercise-3",
       {"yes", "no"},
       {choice(all_tied ? "yes" : "no")},
       {},
       "Open Tied projections: does every row's ▲ (its largest score) sit on the ◆ of its own token?",
       setting + ", " + diagonal_story(now.tied, now.tokens, "the tied scores") + "."});
  // qkv04-quiz-1 (what Cauchy–Schwarz guarantees, asked in the abstract, and stated by the prose above it)
  // is retired; qkv04-quiz-6 applies it to two given vectors.
  out.push_back({"qkv04-quiz-6",
                 {"yes", "no"},
                 {choice(given.guaranteed ? "yes" : "no")},
                 {{given.guaranteed ? "no" : "yes",
                   "Cauchy–Schwarz bounds x·y by |x| |y|. Compare that bound with x·x = |x|²: which length "
                   "decides?"}},
                 "",
                 given.explanation});
  // qkv04-quiz-2 (how many rows of X Xᵀ peak on their own token) is retired: qkv04-exercise-1 asks it.
  out.push_back(
      {"qkv04-quiz-3",
       {},
       {count(module.separate.diagonal_rows.size(), n,
              {{n, "that would be every row: look for a row whose ▲ is off the diagonal"}})},
       {},
       std::string(kOwnPeak) + " Count those rows in Separate projections, (X W_q)(X W_k)ᵀ, for seed 1, 5 "
                               "tokens, width 8.",
       of_total(module.separate.diagonal_rows.size(), n) + ": " + rows_text(module.separate.diagonal_rows) +
           " of the separate scores peak on their own token." + separate_story});
  out.back().blanks[0].count_total = n;  // the question names its total: the module's n rows
  out.push_back({"qkv04-quiz-4",
                 {"every-row", "conditional", "avoids"},
                 {choice(tied.answer)},
                 {{"every-row", "Work out each row's three scores: does every row peak on its own vector?"},
                  {"conditional", "Compare the three lengths: is one longer than the others?"},
                  {"avoids",
                   "Tied scores are dot products of the projected vectors with each other, as with no "
                   "projection: what does Cauchy–Schwarz promise the longest one?"}},
                 "",
                 tied.explanation});
  out.push_back({"qkv04-quiz-5",
                 {"roles", "shapes", "bias"},
                 {choice("roles")},
                 {{"shapes", "Keys and values have the same shape in this lesson."},
                  {"bias", "No projection in this lesson has a bias."}},
                 "",
                 "Nothing forces different shapes or biases: matching a position (keys) and carrying what is "
                 "retrieved (values) are different jobs, and separate weights let each specialise."});
  return out;
}

}  // namespace

const std::vector<std::string>& exercise_ids() {
  static const std::vector<std::string> ids = {
      "ch26-output-shapes",   "ch26-first-token",     "ch26-best-key",     "ch26-change-query-only",
      "ch26-parameter-count", "ch26-empty-axes",      "ch26-rank-two",     "ch26-divisibility",
      "ch26-history",         "ch26-still-missing",   "ch26-upstream-key", "ch26-double-key-weight",
      "ch26-key-bias",        "ch26-preview-weights", "qkv04-exercise-1",  "qkv04-exercise-2",
      "qkv04-exercise-3",     "qkv04-quiz-6",         "qkv04-quiz-3",      "qkv04-quiz-4",
      "qkv04-quiz-5"};  // qkv04-quiz-1 and -2 are retired: never reuse them
  return ids;
}

std::vector<Exercise> lesson_exercises(const ExerciseContext& context) {
  const Extent tokens = context.chapter.request.input.shape()[1];
  const Chapter chapter{context.chapter,
                        context.token_names.empty() ? token_names(tokens) : context.token_names,
                        context.setting};
  std::vector<Exercise> out = chapter26_exercises(chapter);
  for (Exercise& exercise : self_score_exercises(context.current, context.current_seed, context.module))
    out.push_back(std::move(exercise));
  return out;
}

}  // namespace qkv
