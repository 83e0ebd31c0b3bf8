# Sourced by scripts/gpu-suite.sh on a machine whose image lacks the demo's GL libraries (a bare
# CUDA container): unpacks the packages of .gl/ and points EGL at NVIDIA's vendor library.
#   .gl/*.deb        the GL packages (libEGL, libGL, GLVND), unpacked into /
#   .gl/extra/*.deb  GLFW and the X11 client libraries the demo links, unpacked apart from / (other
#                    packages unpacked into / can break such an image) and found through
#                    LD_LIBRARY_PATH. Fetched once on a Debian machine with
#     (cd .gl/extra && apt-get -oAPT::Architecture=amd64 download libglfw3 libx11-6 libx11-data \
#        libxcb1 libxau6 libxdmcp6 libbsd0 libmd0)
if compgen -G ".gl/*.deb" >/dev/null; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
if compgen -G ".gl/extra/*.deb" >/dev/null; then
  for f in .gl/extra/*.deb; do dpkg -x "$f" /tmp/depthsort-libs; done
  export LD_LIBRARY_PATH=/tmp/depthsort-libs/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
