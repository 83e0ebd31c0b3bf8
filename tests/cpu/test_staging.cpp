// Which staging path each architecture's compile pass takes (primitives/staging.hpp), and the
// shared memory the host sizes for it: the host and the device must agree on it, or a kernel's
// buffers would overlap (tests/gpu/test_primitives_gpu.cu checks the agreement on the GPU).
#include <gtest/gtest.h>

#include "sort/primitives/staging.hpp"

namespace depthsort::primitives {
namespace {

TEST(StagingPath, EachArchitectureTakesTheNewestCopyItHas) {
  EXPECT_EQ(staging_path_for(750), StagingPath::PlainLoads);
  for (const int arch : {800, 860, 870, 890}) EXPECT_EQ(staging_path_for(arch), StagingPath::AsyncCopy) << arch;
  for (const int arch : {900, 1000, 1030, 1200, 1210}) EXPECT_EQ(staging_path_for(arch), StagingPath::BulkCopy) << arch;
}

TEST(StagingPath, OnlyACopyThatOverlapsGetsASecondBuffer) {
  EXPECT_EQ(staging_buffers(StagingPath::PlainLoads), 1);
  EXPECT_EQ(staging_buffers(StagingPath::AsyncCopy), 2);
  EXPECT_EQ(staging_buffers(StagingPath::BulkCopy), 2);
  // run-bucket's small-bucket sort: keys and values of 3072 pairs a buffer.
  EXPECT_EQ(staging_bytes(StagingPath::BulkCopy, 2, 3072), 49152u);
  EXPECT_EQ(staging_bytes(StagingPath::AsyncCopy, 2, 3072), 49152u);
  EXPECT_EQ(staging_bytes(StagingPath::PlainLoads, 2, 3072), 24576u);
}

TEST(StagingPath, NamesForMessages) {
  EXPECT_STREQ(staging_path_name(StagingPath::PlainLoads), "plain loads");
  EXPECT_STREQ(staging_path_name(StagingPath::AsyncCopy), "cp.async");
  EXPECT_STREQ(staging_path_name(StagingPath::BulkCopy), "bulk copy");
}

}  // namespace
}  // namespace depthsort::primitives
