// The frame-coherent sorters over sequences of sorts on ONE instance, as a pipeline
// runs them: frames of a camera path whose depths come in the last frame's sorted order (nearly
// sorted), then a camera cut and arbitrary inputs, then nearly sorted again; every sort exact
// against the CPU reference. The generic suite (test_sorters_gpu.cpp) runs them on every
// distribution as well, since they are registry rows. Skipped without a usable CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "support/sort_suite.hpp"

namespace depthsort::testing {
namespace {

// The registry rows that keep state from one sort to the next or exploit presorted input.
constexpr std::string_view kCoherentSorters[] = {"hybrid-coherent", "run-bucket"};

std::vector<std::string> coherent_sorter_names() {
  std::vector<std::string> names;
  for (std::string_view name : kCoherentSorters)
    if (find_sorter(name)) names.emplace_back(name);
  return names;
}

// The four device arrays of one frame, sized once.
class Frame {
 public:
  explicit Frame(std::size_t max_n)
      : keys_in_(max_n, "test keys in"),
        keys_out_(max_n, "test keys out"),
        values_in_(max_n, "test values in"),
        values_out_(max_n, "test values out") {}

  // Sorts keys (values: make_values) with sorter, checks the result against the CPU reference and
  // writes to *positions the input position of each output pair (the order a pipeline hands on).
  CheckResult sort(Sorter& sorter, std::span<const float> keys, std::vector<std::uint32_t>* positions) {
    const std::size_t n = keys.size();
    const std::vector<std::uint32_t> values = make_values(n);
    if (n > 0) {
      DEPTHSORT_CUDA_CHECK(cudaMemcpy(keys_in_.data(), keys.data(), n * 4, cudaMemcpyHostToDevice));
      DEPTHSORT_CUDA_CHECK(cudaMemcpy(values_in_.data(), values.data(), n * 4, cudaMemcpyHostToDevice));
      DEPTHSORT_CUDA_CHECK(cudaMemset(keys_out_.data(), 0xFF, n * 4));
      DEPTHSORT_CUDA_CHECK(cudaMemset(values_out_.data(), 0xFF, n * 4));
    }
    sorter.sort({keys_in_.data(), values_in_.data(), keys_out_.data(), values_out_.data(), n}, nullptr);
    DEPTHSORT_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> keys_out(n);
    std::vector<std::uint32_t> values_out(n);
    if (n > 0) {
      DEPTHSORT_CUDA_CHECK(cudaMemcpy(keys_out.data(), keys_out_.data(), n * 4, cudaMemcpyDeviceToHost));
      DEPTHSORT_CUDA_CHECK(cudaMemcpy(values_out.data(), values_out_.data(), n * 4, cudaMemcpyDeviceToHost));
    }
    CheckResult result = check_sorted_pairs(keys, reference_order(keys), keys_out, values_out);
    if (positions) {
      positions->resize(n);
      for (std::size_t i = 0; i < n; ++i)
        (*positions)[i] = static_cast<std::uint32_t>(index_for_value(values_out[i]) % std::max<std::size_t>(n, 1));
    }
    return result;
  }

 private:
  DeviceBuffer<float> keys_in_, keys_out_;
  DeviceBuffer<std::uint32_t> values_in_, values_out_;
};

// One frame of a camera path in the coherent way: this frame's depths in *order (the last frame's
// sorted ids), sorted and checked; *order becomes this frame's sorted ids.
CheckResult coherent_frame(Sorter& sorter, Frame& frame, std::span<const ScenePoint> scene, const DepthPlane& plane,
                           std::vector<std::uint32_t>& order) {
  std::vector<float> keys(order.size());
  fill_depths_in_order(scene, plane, order, keys);
  std::vector<std::uint32_t> positions;
  const CheckResult result = frame.sort(sorter, keys, &positions);
  std::vector<std::uint32_t> next(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) next[i] = order[positions[i]];
  order = std::move(next);
  return result;
}

class CoherentSequence : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Sorter> make() {
    const SorterInfo* info = find_sorter(GetParam());
    return info->create(default_options(*info));
  }
};

// The paths run over 600 frames (0.6 degrees a frame on the orbit).
constexpr std::uint64_t kSequenceFrames = 600;

// Orbit frames, a cut, frames of the new shot, arbitrary inputs, then coherent frames again.
TEST_P(CoherentSequence, ExactThroughCutsAndArbitraryInputs) {
  const SorterInfo* info = find_sorter(GetParam());
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*info);
  const std::unique_ptr<Sorter> sorter = make();
  const std::size_t n = (std::size_t{1} << 20) + 3;
  sorter->reserve(n);
  Frame frame(n);
  const std::vector<ScenePoint> scene = make_scene(n, 7);
  const PathCamera base = scene_camera(scene);
  std::vector<std::uint32_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);  // first frame: scene order
  auto run = [&](const std::string& what, const CheckResult& result) {
    EXPECT_TRUE(result.ok) << sorter->name() << ", " << what << ": " << result.message;
    return result.ok;
  };
  // Frames kCutEvery-4 .. kCutEvery+4 of the cuts path: coherent, a cut at kCutEvery, coherent.
  for (std::uint64_t f = kCutEvery - 4; f <= kCutEvery + 4; ++f)
    if (!run("cuts path frame " + std::to_string(f),
             coherent_frame(*sorter, frame, scene, camera_plane(CameraPath::Cuts, base, f, kSequenceFrames), order)))
      return;
  // Arbitrary inputs of other sizes on the same instance (the last frame's pivots are useless).
  for (const auto& [dist, size] : {std::pair{Distribution::Uniform, n}, std::pair{Distribution::Reverse, n - 1000},
                                   std::pair{Distribution::Outliers, std::size_t{4097}},
                                   std::pair{Distribution::Specials, n}, std::pair{Distribution::AllEqual, n}}) {
    const std::vector<float> keys = make_keys(dist, size, 11);
    if (!run(std::string(distribution_name(dist)), frame.sort(*sorter, keys, nullptr))) return;
  }
  // Coherent again: fly-through frames, starting from the scene order (its first frame is a cut).
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
  for (std::uint64_t f = 0; f < 6; ++f)
    if (!run("fly-through frame " + std::to_string(f),
             coherent_frame(*sorter, frame, scene, camera_plane(CameraPath::FlyThrough, base, f, kSequenceFrames),
                            order)))
      return;
  // Nearly sorted distributions at varying sizes, then size 0 and 1 in between.
  for (Distribution dist :
       {Distribution::Swaps16, Distribution::SwapsSparse, Distribution::LocalDisplace, Distribution::CameraStep}) {
    for (std::size_t size : {n, std::size_t{0}, std::size_t{1}, std::size_t{65537}, n - 5}) {
      const std::vector<float> keys = make_keys(dist, size, size + 3);
      if (!run(std::string(distribution_name(dist)) + " n=" + std::to_string(size), frame.sort(*sorter, keys, nullptr)))
        return;
    }
  }
}

// A long coherent run at 4M: the orbit for 12 frames, exact every frame.
TEST_P(CoherentSequence, OrbitStaysExactAt4M) {
  const SorterInfo* info = find_sorter(GetParam());
  DEPTHSORT_SKIP_WITHOUT_DEVICE(*info);
  const std::unique_ptr<Sorter> sorter = make();
  const std::size_t n = std::size_t{4} << 20;
  sorter->reserve(n);
  Frame frame(n);
  const std::vector<ScenePoint> scene = make_scene(n, 9);
  const PathCamera base = scene_camera(scene);
  std::vector<std::uint32_t> order = sorted_order(scene, camera_plane(CameraPath::Orbit, base, 0, kSequenceFrames));
  for (std::uint64_t f = 1; f <= 12; ++f) {
    const CheckResult result =
        coherent_frame(*sorter, frame, scene, camera_plane(CameraPath::Orbit, base, f, kSequenceFrames), order);
    ASSERT_TRUE(result.ok) << sorter->name() << ", orbit frame " << f << ": " << result.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, CoherentSequence, ::testing::ValuesIn(coherent_sorter_names()),
                         [](const auto& info) { return test_name(info.param); });

// A "coherent sorter" that trusts the last frame's order outright (copies its input): the checks
// above must reject it on nearly sorted input, so they can fail.
class TrustingSorter final : public Sorter {
 public:
  TrustingSorter() : Sorter("trusting", Backend::Gpu) {}
  std::size_t workspace_bytes() const override { return 0; }

 protected:
  void do_reserve(std::size_t) override {}
  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    StepScope step(timer, "copy");
    if (b.n == 0) return;
    DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(b.keys_out, b.keys_in, b.n * 4, cudaMemcpyDeviceToDevice, stream));
    DEPTHSORT_CUDA_CHECK(cudaMemcpyAsync(b.values_out, b.values_in, b.n * 4, cudaMemcpyDeviceToDevice, stream));
  }
};

TEST(CoherentSuite, CatchesASorterThatTrustsTheLastFrame) {
  std::string why;
  if (!cuda_device_usable(&why)) GTEST_SKIP() << why;
  TrustingSorter sorter;
  const std::size_t n = 65537;
  sorter.reserve(n);
  Frame frame(n);
  EXPECT_TRUE(frame.sort(sorter, make_keys(Distribution::Sorted, n), nullptr).ok) << "sorted input: invisible";
  for (Distribution dist : {Distribution::Swaps16, Distribution::CameraStep}) {
    const CheckResult result = frame.sort(sorter, make_keys(dist, n), nullptr);
    EXPECT_FALSE(result.ok) << distribution_name(dist);
    std::cout << "planted defect caught on " << distribution_name(dist) << ": " << result.message << '\n';
  }
}

}  // namespace
}  // namespace depthsort::testing
