// The procedural scene of the demo and of the benchmark's frame sequences: a tube around a (p, q)
// torus knot. One generator, so that the demo's mesh (app/scene/mesh.cpp), the benchmark's point
// cloud (bench/harness, --sequence) and the `mesh` key distribution are the same shape.
#pragma once

#include <array>

namespace depthsort {

// The radii are the float values the demo's scenes were built with (0.42f, 0.11f), so that the
// meshes stay the same to the bit.
struct TorusKnot {
  int p = 3, q = 7;       // windings around the axis of symmetry and through the hole
  double radius = 1.0;    // of the torus the knot lies on (centre to tube centre)
  double wobble = 0.42f;  // of the torus' cross-section the knot winds around
  double tube = 0.11f;    // of the tube drawn around the knot
};

using Point3d = std::array<double, 3>;

// The tube's cross-section at parameter t (one loop over [0, 1)): the knot's point and two unit
// vectors across the tube (towards the centre of curvature, and its cross with the tangent).
struct KnotRing {
  Point3d centre, normal, binormal;
};
KnotRing knot_ring(const TorusKnot& knot, double t);
// The point at angle a (radians) around the ring, `tube` away from the knot.
Point3d ring_point(const KnotRing& ring, double a, double tube);

}  // namespace depthsort
