// The intersecting scene (--scene intersect) checked against a CPU per-pixel reference, for the
// CPU path's tests and the GPU's: the scene as the app builds it, seen by its camera, rasterised
// on the CPU (which triangles cover a pixel's centre, by edge functions in window coordinates;
// their window depths, affine in screen space as GL interpolates them), each pixel blended per
// pixel (far first) and in the sorted mode's order (by centroid key), each step rounded to 8 bits
// as an RGBA8 target blends. Pixels whose covering triangles or their order change within one
// pixel (an edge or a crossing nearby) are left out.
#pragma once

#include <string>

#include "support.hpp"

namespace depthsort::app::test {

struct IntersectCheck {
  int compared = 0, skipped = 0;
  int must_differ = 0;         // pixels where the CPU's two blends differ by more than 2/255
  int wrong_reference = 0;     // the app's reference is not the CPU's per-pixel blend (within 2/255)
  int wrong_sorted = 0;        // the app's sorted picture is not the CPU's primitive-order blend
  int wrong_difference = 0;    // sorted and reference differ (or not) where the CPU says otherwise
  std::string first_failures;  // the first few such pixels, described
};

// `sorted` and `reference`: the app's screenshots of the scene in those modes, at their size.
IntersectCheck check_intersect(const Image& sorted, const Image& reference);

}  // namespace depthsort::app::test
