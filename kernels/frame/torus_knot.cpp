#include "depthsort/frame/torus_knot.hpp"

#include <cmath>
#include <numbers>

namespace depthsort {
namespace {

Point3d operator+(const Point3d& a, const Point3d& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Point3d operator-(const Point3d& a, const Point3d& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Point3d operator*(double s, const Point3d& a) { return {s * a[0], s * a[1], s * a[2]}; }
double dot(const Point3d& a, const Point3d& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Point3d normalize(const Point3d& a) { return (1.0 / std::sqrt(dot(a, a))) * a; }
Point3d cross(const Point3d& a, const Point3d& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

Point3d knot_curve(const TorusKnot& knot, double t) {
  const double phi = t * 2.0 * std::numbers::pi;
  const double rr = knot.radius + knot.wobble * std::cos(knot.q * phi);
  return {rr * std::cos(knot.p * phi), knot.wobble * std::sin(knot.q * phi), rr * std::sin(knot.p * phi)};
}

}  // namespace

KnotRing knot_ring(const TorusKnot& knot, double t) {
  // Tangent and curvature by central differences: the knot has no closed-form frame worth its
  // length, and a step of 1e-4 of the loop is exact to far below a pixel.
  constexpr double e = 1e-4;
  const Point3d c = knot_curve(knot, t), ahead = knot_curve(knot, t + e), behind = knot_curve(knot, t - e);
  const Point3d tangent = normalize(ahead - behind);
  Point3d normal = ahead + behind - 2.0 * c;  // towards the centre of curvature
  normal = normalize(normal - dot(normal, tangent) * tangent);
  return {c, normal, cross(tangent, normal)};
}

Point3d ring_point(const KnotRing& ring, double a, double tube) {
  return ring.centre + tube * (std::cos(a) * ring.normal + std::sin(a) * ring.binormal);
}

}  // namespace depthsort
