// What the napkin binary was built from, for --version (the source is generated at build time
// by cmake/build_info.cmake).
#pragma once

namespace napkin::cli {

/// The short hash of the commit the binary was built from, "<hash>-dirty" when tracked files
/// differed from it, or "unknown" outside a git work tree (a release tarball).
const char* build_commit();

}  // namespace napkin::cli
