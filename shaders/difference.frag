#version 450 core
// The difference view: a mode's picture against the per-pixel reference's, pixel by pixel. A
// pixel whose largest channel difference exceeds the tolerance is drawn from orange (just over)
// to yellow (64 steps and more) and counted, with the largest difference; the others show the
// mode's picture in dim grey. A pixel where the reference lost fragments to its budget cannot be
// compared: counted apart and drawn in magenta stripes.
layout(binding = 0) uniform sampler2D u_mode;
layout(binding = 1) uniform sampler2D u_reference;
layout(std430, binding = 7) readonly buffer Lost { uint lost[]; };
// [2]: pixels beyond the tolerance, [3]: the largest difference, [4]: pixels not compared
layout(std430, binding = 8) buffer Stats { uint stats[]; };
uniform uint u_width;
uniform int u_tolerance;  // in steps of 1/255
out vec4 o_colour;
void main() {
  const ivec2 p = ivec2(gl_FragCoord.xy);
  const uint pixel = uint(p.y) * u_width + uint(p.x);
  const vec3 mode = texelFetch(u_mode, p, 0).rgb;
  if (lost[pixel] > 0u) {
    atomicAdd(stats[4], 1u);
    o_colour = vec4(((p.x + p.y) / 4) % 2 == 0 ? vec3(1.0, 0.0, 1.0) : vec3(0.0), 1.0);
    return;
  }
  const ivec3 d = abs(ivec3(round(mode * 255.0)) - ivec3(round(texelFetch(u_reference, p, 0).rgb * 255.0)));
  const int largest = max(d.r, max(d.g, d.b));
  if (largest > u_tolerance) {
    atomicAdd(stats[2], 1u);
    atomicMax(stats[3], uint(largest));
    o_colour = vec4(mix(vec3(1.0, 0.35, 0.0), vec3(1.0, 1.0, 0.2), clamp(float(largest) / 64.0, 0.0, 1.0)), 1.0);
  } else {
    o_colour = vec4(vec3(0.4 * dot(mode, vec3(0.299, 0.587, 0.114))), 1.0);
  }
}
