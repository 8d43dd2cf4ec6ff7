# `cmake --install build --prefix PREFIX`: the program, the C and Fortran libraries (shared, soname
# libhamlet.so.${HAMLET_ABI_VERSION}, and static twins built from the same -fPIC objects), headers,
# Fortran modules, the CMake package (hamlet::hamlet, hamlet::fortran), pkg-config files and the
# example decks. Included last from the top CMakeLists.txt, when every folder has added its
# sources and usage requirements to the targets. Everything installed is relocatable: RPATH
# $ORIGIN, pkg-config ${pcfiledir}, CMake's PACKAGE_INIT.
include(CMakePackageConfigHelpers)

set(HAMLET_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hamlet)

# A static twin of a shared library: the same objects, the same usage requirements.
function(hm_static_twin shared twin)
  add_library(${twin} STATIC $<TARGET_OBJECTS:${shared}>)
  get_target_property(output_name ${shared} OUTPUT_NAME)
  if(NOT output_name)
    set(output_name ${shared})
  endif()
  set_target_properties(${twin} PROPERTIES OUTPUT_NAME ${output_name}
                        ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/static)
  foreach(property INTERFACE_INCLUDE_DIRECTORIES INTERFACE_COMPILE_DEFINITIONS)
    get_target_property(value ${shared} ${property})
    if(value)
      set_property(TARGET ${twin} PROPERTY ${property} "${value}")
    endif()
  endforeach()
  # a static library passes on every library its objects need, the shared one's private ones too
  get_target_property(links ${shared} LINK_LIBRARIES)
  if(links)
    set_property(TARGET ${twin} PROPERTY INTERFACE_LINK_LIBRARIES "${links}")
  endif()
endfunction()

set_target_properties(hamlet PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${HAMLET_ABI_VERSION}
                      EXPORT_NAME hamlet INSTALL_RPATH "$ORIGIN" INSTALL_RPATH_USE_LINK_PATH TRUE)
hm_static_twin(hamlet hamlet_static)
set_target_properties(hamlet_static PROPERTIES EXPORT_NAME hamlet_static)
if(HAMLET_CUDA)
  # the CUDA objects' host code is C++: a C program linking them statically needs its runtime
  set_property(TARGET hamlet_static APPEND PROPERTY INTERFACE_LINK_LIBRARIES stdc++)
endif()
set_target_properties(hamlet_app PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}"
                      INSTALL_RPATH_USE_LINK_PATH TRUE)

install(TARGETS hamlet_app RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS hamlet hamlet_static EXPORT hamletTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_SOURCE_DIR}/include/hamlet.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/hamlet/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hamlet
        FILES_MATCHING PATTERN "*.h")
install(EXPORT hamletTargets NAMESPACE hamlet:: DESTINATION ${HAMLET_CMAKE_DIR})

if(HAMLET_FORTRAN)
  set_target_properties(hamlet_fortran PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${HAMLET_ABI_VERSION}
                        EXPORT_NAME fortran INSTALL_RPATH "$ORIGIN" INSTALL_RPATH_USE_LINK_PATH TRUE)
  hm_static_twin(hamlet_fortran hamlet_fortran_static)
  set_target_properties(hamlet_fortran_static PROPERTIES EXPORT_NAME fortran_static)
  # the static Fortran library stands on the static C library
  get_target_property(fortran_links hamlet_fortran_static INTERFACE_LINK_LIBRARIES)
  list(TRANSFORM fortran_links REPLACE "^hamlet$" "hamlet_static")
  set_property(TARGET hamlet_fortran_static PROPERTY INTERFACE_LINK_LIBRARIES "${fortran_links}")
  install(TARGETS hamlet_fortran hamlet_fortran_static EXPORT hamletFortranTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY ${CMAKE_BINARY_DIR}/fortran/modules/ DESTINATION ${HAMLET_FORTRAN_MODULE_DIR}
          FILES_MATCHING PATTERN "*.mod")
  install(EXPORT hamletFortranTargets NAMESPACE hamlet:: DESTINATION ${HAMLET_CMAKE_DIR})
endif()

# Example decks (every one runs in the test suite) and the plot script.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/inputs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hamlet/inputs)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/tools/plot_dos.py DESTINATION ${CMAKE_INSTALL_DATADIR}/hamlet)
install(FILES ${CMAKE_SOURCE_DIR}/tools/plot_spectral.py ${CMAKE_SOURCE_DIR}/tools/plot_evolution.py
              ${CMAKE_SOURCE_DIR}/tools/plot_eigen.py ${CMAKE_SOURCE_DIR}/tools/plot_output.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/hamlet) # imported by plot_dos.py
# the user's other tools: sigma_xy(mu) of both field signs, the Hofstadter butterfly
install(PROGRAMS ${CMAKE_SOURCE_DIR}/tools/plot_hall.py ${CMAKE_SOURCE_DIR}/tools/hofstadter.sh
        DESTINATION ${CMAKE_INSTALL_DATADIR}/hamlet/tools)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/downstream/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hamlet/examples/downstream
        PATTERN "build*" EXCLUDE)

# CMake package: config (finds the dependencies the targets name) and version file.
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/hamletConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/hamletConfig.cmake INSTALL_DESTINATION ${HAMLET_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_DATADIR HAMLET_FORTRAN_MODULE_DIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/hamletConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/hamletConfig.cmake ${CMAKE_BINARY_DIR}/package/hamletConfigVersion.cmake
        DESTINATION ${HAMLET_CMAKE_DIR})

# pkg-config: hamlet.pc (C) and hamlet-fortran.pc (module folder, MPI's Fortran flags and library).
file(RELATIVE_PATH HAMLET_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
list(JOIN MPI_Fortran_INCLUDE_DIRS " -I" HAMLET_PC_MPI_FORTRAN_INCLUDES)
if(HAMLET_PC_MPI_FORTRAN_INCLUDES)
  set(HAMLET_PC_MPI_FORTRAN_INCLUDES "-I${HAMLET_PC_MPI_FORTRAN_INCLUDES}")
endif()
list(JOIN MPI_Fortran_LIBRARIES " " HAMLET_PC_MPI_FORTRAN_LIBS)
set(HAMLET_PC_CUDA_LIBS "")
if(HAMLET_CUDA)
  set(HAMLET_PC_CUDA_LIBS "-L${CUDAToolkit_LIBRARY_DIR} -lcudart -ldl -lstdc++") # cuBLAS, cuSOLVER: dlopen
endif()
list(JOIN HDF5_C_LIBRARIES " " HAMLET_PC_HDF5_LIBS)
list(JOIN LAPACK_LIBRARIES " " HAMLET_PC_LAPACK_LIBS)
configure_file(${CMAKE_SOURCE_DIR}/cmake/hamlet.pc.in ${CMAKE_BINARY_DIR}/package/hamlet.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/hamlet.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(HAMLET_FORTRAN)
  configure_file(${CMAKE_SOURCE_DIR}/cmake/hamlet-fortran.pc.in ${CMAKE_BINARY_DIR}/package/hamlet-fortran.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/package/hamlet-fortran.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
