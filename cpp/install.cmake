# Installs the library as a CMake package and a pkg-config file:
#   find_package(attnlab 0.1 CONFIG REQUIRED)  then  target_link_libraries(app PRIVATE attnlab::attnlab)
#   pkg-config --cflags --libs attnlab
# (included from cpp/CMakeLists.txt when ATTNLAB_INSTALL is on.)
include(CMakePackageConfigHelpers)

set(ATTNLAB_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/attnlab)
install(TARGETS attnlab EXPORT attnlabTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/attnlab ${CMAKE_CURRENT_BINARY_DIR}/include/attnlab
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
install(EXPORT attnlabTargets NAMESPACE attnlab:: FILE attnlabTargets.cmake DESTINATION ${ATTNLAB_CMAKE_DIR})

configure_package_config_file(cmake/attnlabConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/attnlabConfig.cmake
                              INSTALL_DESTINATION ${ATTNLAB_CMAKE_DIR})
# 0.x releases: a consumer asking for 0.1 accepts 0.1.y and 0.2 (SameMajorVersion), as CMake defines it.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/attnlabConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/attnlabConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/attnlabConfigVersion.cmake
        DESTINATION ${ATTNLAB_CMAKE_DIR})

# pkg-config: Eigen's own .pc (eigen3) gives its include path.
configure_file(cmake/attnlab.pc.in ${CMAKE_CURRENT_BINARY_DIR}/attnlab.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/attnlab.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
