// ch04.ex4 — data::detail::OrderedPrefetcher: items loaded ahead by threads, handed out in order. The
// loads sleep for varying times so that the threads finish out of order.
#include "ch04_grading.hpp"

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

using namespace ch04_grading;
using data::detail::OrderedPrefetcher;

namespace {
void nap(std::int64_t k) { std::this_thread::sleep_for(std::chrono::microseconds((k * 7919) % 600)); }

std::vector<std::int64_t> drain(OrderedPrefetcher& q) {
  std::vector<std::int64_t> out;
  while (auto item = q.next()) out.push_back(*static_cast<std::int64_t*>(item.get()));
  return out;
}
}  // namespace

TEST_CASE("prefetcher: every item once, in order, however the threads race", "[ch04][ex4][pts=7]") {
  // n and c are drawn for each grading run: the items can only come from these loads.
  const std::int64_t n = grading::input("n").item<std::int64_t>(), c = grading::input("c").item<std::int64_t>();
  std::vector<std::atomic<int>> loads(static_cast<std::size_t>(n));
  for (auto [workers, window] : std::vector<std::pair<std::int64_t, std::int64_t>>{{4, 8}, {1, 1}, {7, 3}}) {
    OrderedPrefetcher q(n, workers, window, [&](std::int64_t k, std::int64_t) -> OrderedPrefetcher::Item {
      nap(k);
      ++loads[static_cast<std::size_t>(k)];
      return std::make_shared<std::int64_t>(k * k + c);
    });
    grading::expect("items with " + std::to_string(workers) + (workers == 1 ? " worker" : " workers") + ", window " +
                        std::to_string(window),
                    drain(q));
  }
  std::vector<std::int64_t> per_item;
  for (auto& l : loads) per_item.push_back(l.load() / 3);  // three runs
  grading::expect("loads per item", per_item);
}

TEST_CASE("prefetcher: never more than the window ahead", "[ch04][ex4][pts=6]") {
  const std::int64_t n = grading::input("n").item<std::int64_t>(), window = 5;
  std::atomic<std::int64_t> consumed{0}, worst{0}, ahead{0};
  OrderedPrefetcher q(n, 3, window, [&](std::int64_t k, std::int64_t) -> OrderedPrefetcher::Item {
    const std::int64_t lead = k - consumed.load();
    for (std::int64_t w = worst.load(); lead > w && !worst.compare_exchange_weak(w, lead);) {}
    if (lead > 0) ++ahead;
    return std::make_shared<std::int64_t>(k);
  });
  std::vector<std::int64_t> got;
  while (auto item = q.next()) {
    got.push_back(*static_cast<std::int64_t*>(item.get()));
    std::this_thread::sleep_for(std::chrono::microseconds(300));  // a slow consumer: the threads get ahead
    ++consumed;
  }
  grading::expect("items", got);
  INFO("the furthest load ahead of the consumer: " << worst.load() << " items (window " << window << ")");
  grading::expect("the loads stayed within the window", worst.load() <= window);
  grading::expect("the threads loaded ahead", ahead.load() > 0);
}

TEST_CASE("prefetcher: an error reaches the consumer at its item", "[ch04][ex4][pts=6]") {
  const std::int64_t n = grading::input("n").item<std::int64_t>(), bad = grading::input("bad").item<std::int64_t>();
  OrderedPrefetcher q(n, 4, 6, [bad](std::int64_t k, std::int64_t) -> OrderedPrefetcher::Item {
    nap(k);
    if (k == bad) throw kd::ValueError("item " + std::to_string(k) + " is bad");
    return std::make_shared<std::int64_t>(k);
  });
  std::vector<std::int64_t> before;
  for (std::int64_t i = 0; i < bad; ++i) before.push_back(*static_cast<std::int64_t*>(q.next().get()));
  grading::expect("items before the error", before);
  grading::expect_error("next() at item " + std::to_string(bad), [&] { (void)q.next(); });
}

TEST_CASE("prefetcher: destroyed early, it stops and joins its threads", "[ch04][ex4][pts=3]") {
  const std::int64_t n = grading::input("n").item<std::int64_t>();
  std::atomic<std::int64_t> loads{0};
  std::vector<std::int64_t> taken;
  {
    OrderedPrefetcher q(n, 4, 8, [&](std::int64_t k, std::int64_t) -> OrderedPrefetcher::Item {
      nap(k);
      ++loads;
      return std::make_shared<std::int64_t>(k);
    });
    for (int i = 0; i < 3; ++i) taken.push_back(*static_cast<std::int64_t*>(q.next().get()));
  }  // the destructor must return (the test's timeout says when it does not)
  grading::expect("items taken", taken);
  INFO(loads.load() << " items were loaded");
  grading::expect("loads stayed bounded (<= 3 + window + workers)", loads.load() <= 3 + 8 + 4);
}

TEST_CASE("DataLoader: with workers, the batches of the dataset in order", "[ch04][ex4][pts=3]") {
  data::TensorDataset ds(grading::input("x"), grading::input("y"));
  data::DataLoader loader(ds, {.batch_size = 8, .num_workers = 3});
  int k = 0;
  for (auto& [x, y] : loader) {
    grading::expect("batch " + std::to_string(k) + ": data", x);
    grading::expect("batch " + std::to_string(k) + ": targets", y);
    ++k;
  }
}
