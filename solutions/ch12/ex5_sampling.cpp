// ch12.ex5 — the next token's probabilities: temperature sharpens (< 1) or flattens (> 1) the
// distribution, top-k keeps the k most likely tokens, top-p (nucleus) the fewest whose mass
// reaches p, so that sampling never picks one of the thousands of individually unlikely tokens.
//
// text::detail::next_token_probs (kindling/text/pieces.hpp): generate() calls it for every row of
// the last logits (temperature 0, greedy, takes the argmax without it), checks the result, and
// draws a token from it with the generator it was given.
#include "kindling/text/pieces.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kindling::text::detail {

std::vector<double> next_token_probs(const std::vector<double>& logits, double temperature, std::int64_t top_k,
                                     double top_p) {
  // BEGIN SOLUTION ex5: sort once; top-k is a prefix, softmax over it, top-p a shorter prefix
  const std::size_t V = logits.size();
  std::vector<std::size_t> order(V);
  std::iota(order.begin(), order.end(), std::size_t{0});
  // Most likely first; equal logits keep vocabulary order (the earlier token wins a tie).
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return logits[a] > logits[b]; });
  std::size_t keep = V;
  if (top_k > 0) keep = std::min(keep, static_cast<std::size_t>(top_k));
  // Softmax of logits / T over the kept tokens, shifted by the largest for stability.
  std::vector<double> p(keep);
  const double top = logits[order[0]] / temperature;
  double sum = 0;
  for (std::size_t i = 0; i < keep; ++i) sum += p[i] = std::exp(logits[order[i]] / temperature - top);
  for (double& x : p) x /= sum;
  if (top_p < 1.0) {  // the smallest prefix whose mass reaches top_p, at least one token
    double acc = 0;
    std::size_t n = 0;
    while (n < keep && acc < top_p) acc += p[n++];
    keep = std::max<std::size_t>(n, 1);
    for (std::size_t i = 0; i < keep; ++i) p[i] /= acc > 0 ? acc : 1.0;
  }
  std::vector<double> probs(V, 0.0);
  for (std::size_t i = 0; i < keep; ++i) probs[order[i]] = p[i];
  return probs;
  // END SOLUTION
}

}  // namespace kindling::text::detail
