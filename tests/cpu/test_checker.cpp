// The reference checker must catch what a broken sorter does: a check that cannot fail is a defect.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "depthsort/sort/keys.hpp"
#include "depthsort/harness/workload.hpp"

namespace depthsort {
namespace {

// A correct result of sorting `keys`, made independently of the checker (stable index sort).
struct Sorted {
  std::vector<float> keys;
  std::vector<std::uint32_t> values;
};
Sorted correct_result(const std::vector<float>& keys) {
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return key_less(keys[a], keys[b]); });
  Sorted sorted;
  for (std::size_t i : order) {
    sorted.keys.push_back(keys[i]);
    sorted.values.push_back(value_for_index(i));
  }
  return sorted;
}

class CheckerTest : public ::testing::Test {
 protected:
  std::vector<float> keys = make_keys(Distribution::Specials, 5000, 7);
  std::vector<std::uint32_t> reference = reference_order(keys);
  Sorted sorted = correct_result(keys);
  CheckResult check() const { return check_sorted_pairs(keys, reference, sorted.keys, sorted.values); }
};

TEST_F(CheckerTest, PassesACorrectResult) { EXPECT_TRUE(check().ok) << check().message; }

TEST_F(CheckerTest, CatchesASwappedPair) {
  const auto at =
      std::adjacent_find(sorted.keys.begin(), sorted.keys.end(), [](float a, float b) { return key_less(a, b); }) -
      sorted.keys.begin();
  std::swap(sorted.keys[at], sorted.keys[at + 1]);
  std::swap(sorted.values[at], sorted.values[at + 1]);
  EXPECT_FALSE(check().ok);
}

TEST_F(CheckerTest, CatchesALostValue) {
  sorted.values[1234] = 0xFFFFFFFFu;  // what a poisoned, unwritten slot holds
  const CheckResult result = check();
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.message.find("lost"), std::string::npos) << result.message;
}

TEST_F(CheckerTest, CatchesADuplicatedValue) {
  sorted.values[10] = sorted.values[11];
  // Make the keys agree so only the duplication is wrong.
  sorted.keys[10] = sorted.keys[11];
  reference = reference_order(keys);
  const CheckResult result = check();
  EXPECT_FALSE(result.ok);
}

TEST_F(CheckerTest, CatchesAValueBesideTheWrongKey) {
  // Two different keys whose values are exchanged: keys still sorted, values not beside their keys.
  const std::size_t a = 100, b = 4000;
  ASSERT_NE(ordered_key(sorted.keys[a]), ordered_key(sorted.keys[b]));
  std::swap(sorted.values[a], sorted.values[b]);
  const CheckResult result = check();
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.message.find("sits beside"), std::string::npos) << result.message;
}

TEST_F(CheckerTest, CatchesAWrongNanPosition) {
  // Move the last key (a +NaN in this distribution) to the front, as a sorter comparing with
  // float '<' might.
  ASSERT_TRUE(std::isnan(sorted.keys.back()));
  std::rotate(sorted.keys.begin(), sorted.keys.end() - 1, sorted.keys.end());
  std::rotate(sorted.values.begin(), sorted.values.end() - 1, sorted.values.end());
  EXPECT_FALSE(check().ok);
}

TEST_F(CheckerTest, CatchesPlusZeroBeforeMinusZero) {
  const auto minus =
      std::find_if(sorted.keys.begin(), sorted.keys.end(), [](float k) { return k == 0.0f && std::signbit(k); });
  const auto plus =
      std::find_if(sorted.keys.begin(), sorted.keys.end(), [](float k) { return k == 0.0f && !std::signbit(k); });
  ASSERT_TRUE(minus != sorted.keys.end() && plus != sorted.keys.end());
  std::iter_swap(minus, plus);
  std::swap(sorted.values[minus - sorted.keys.begin()], sorted.values[plus - sorted.keys.begin()]);
  EXPECT_FALSE(check().ok);
}

TEST_F(CheckerTest, CatchesAShortOutput) {
  sorted.keys.pop_back();
  EXPECT_FALSE(check().ok);
}

}  // namespace
}  // namespace depthsort
