# find_package(napkin) gives napkin::napkin: the calculators (napkin::core) and the model and
# hardware readers and renderers (napkin::io), static libraries with their headers. Their public
# headers need C++20 (the target says so) and no other package: fmt and nlohmann-json are
# compiled in, neither is needed by a consumer.
include("${CMAKE_CURRENT_LIST_DIR}/napkinTargets.cmake")
