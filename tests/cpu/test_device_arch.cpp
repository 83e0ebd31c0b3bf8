// The message for a GPU this build has no kernels for (sort/core/device_arch.hpp): it names the
// build's architectures and a command that builds for the GPU, with or without a GPU present.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "sort/core/device_arch.hpp"

namespace depthsort {
namespace {

TEST(DeviceArch, BuildArchitecturesAreNamedAsNvidiaNamesThem) {
  const std::string archs = build_architectures();
  EXPECT_TRUE(std::regex_match(archs, std::regex("sm_[0-9]{2,3}(, sm_[0-9]{2,3})*"))) << archs;
}

TEST(DeviceArch, TheHintSaysWhatTheBuildCarriesAndHowToBuildForTheGpu) {
  const std::string hint = build_for_this_gpu();
  EXPECT_NE(hint.find("this build carries " + build_architectures()), std::string::npos) << hint;
  EXPECT_NE(hint.find("scripts/run.sh"), std::string::npos) << hint;
  const std::regex command("cmake -S \\. -B build -DCMAKE_CUDA_ARCHITECTURES=[0-9N]+ && cmake --build build");
  EXPECT_TRUE(std::regex_search(hint, command)) << hint;
}

}  // namespace
}  // namespace depthsort
