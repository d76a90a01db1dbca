# Installs the library as a CMake package and a pkg-config file:
#   find_package(attnlab 0.1 CONFIG REQUIRED)  then  target_link_libraries(app PRIVATE attnlab::attnlab)
#   pkg-config --cflags --libs attnlab
# (included from cpp/CMakeLists.txt when ATTNLAB_INSTALL is on.)
include(CMakePackageConfigHelpers)

set(ATTNLAB_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/attnlab)
install(TARGETS attnlab EXPORT attnlabTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
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

# pkg-config: Eigen's own .pc (eigen3) gives its include path. The prefix is found from the file's own
# folder (<prefix>/<libdir>/pkgconfig, however deep libdir is: lib, lib64, lib/x86_64-linux-gnu), so an
# install made with cmake --install --prefix, or moved, still points at itself; absolute directories stay.
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
    set(ATTNLAB_PC_${kind} "${CMAKE_INSTALL_${kind}}")
  else()
    set(ATTNLAB_PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()
file(RELATIVE_PATH ATTNLAB_PC_UP "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(ATTNLAB_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  set(ATTNLAB_PC_PREFIX "\${pcfiledir}/${ATTNLAB_PC_UP}")
endif()
configure_file(cmake/attnlab.pc.in ${CMAKE_CURRENT_BINARY_DIR}/attnlab.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/attnlab.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
