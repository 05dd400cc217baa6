// Graded test of the second fixture chapter: proves one chapter's build failure spares the others.
#include <catch2/catch.hpp>

#include <functional>

#include "negate.hpp"

TEST_CASE("negate: one value", "[ch98][ex1][pts=1]") {
  CHECK(kindling::exercises::ch98::negate(5) == std::negate<int>{}(5));
}
