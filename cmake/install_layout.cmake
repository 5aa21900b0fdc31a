# What `cmake --install build --prefix P` puts in P, in one place:
#
#   bin/streamcheck                      the command
#   lib/streamcheck/                     what it runs and injects: streamcheck-lint, the tracer
#                                        (libstreamcheck_tracer.so, with the precise front-end's
#                                        patches inside), libstreamcheck_preload.so, the bundled
#                                        libunwind.so.8, build_torch_plugin.py, and
#                                        libstreamcheck_torch.so where PyTorch was found at build
#   share/streamcheck/torch_plugin/      the PyTorch plugin's sources, built per PyTorch on first use
#   share/streamcheck/examples/          small CUDA programs to lint and a PyTorch trace to
#                                        replay (docs/getting-started.md)
#   share/doc/streamcheck/               README.md, docs/, the rules' pages
#   include/streamcheck/                 headers for programs that open scopes
#
# Nothing inside names the build tree or P itself: bin/streamcheck finds
# lib/streamcheck from where it is, the tracer finds its neighbours through
# $ORIGIN, so P may be moved or copied (tests/install/relocated_install_test.sh).
# The lint keeps Clang's own libraries and resource headers where the
# clang-22 packages put them (/usr/lib/llvm-22): they are the Debian
# package's dependencies, and `streamcheck doctor` says when they are missing.

set(STREAMCHECK_INSTALL_LIBDIR lib/streamcheck)
set(STREAMCHECK_INSTALL_DATADIR share/streamcheck)
set(STREAMCHECK_INSTALL_DOCDIR share/doc/streamcheck)

install(TARGETS streamcheck RUNTIME DESTINATION bin)

if(TARGET streamcheck-lint)
  set_target_properties(streamcheck-lint PROPERTIES INSTALL_RPATH ${STREAMCHECK_LLVM_ROOT}/lib)
  install(TARGETS streamcheck-lint RUNTIME DESTINATION ${STREAMCHECK_INSTALL_LIBDIR})
endif()

if(TARGET streamcheck_tracer)
  install(TARGETS streamcheck_tracer streamcheck_preload LIBRARY DESTINATION ${STREAMCHECK_INSTALL_LIBDIR})
  if(STREAMCHECK_LIBUNWIND)  # the library itself, not the system's link to it
    file(REAL_PATH ${STREAMCHECK_LIBUNWIND} libunwind_file)
    install(FILES ${libunwind_file} DESTINATION ${STREAMCHECK_INSTALL_LIBDIR} RENAME libunwind.so.8)
  endif()
  if(TARGET streamcheck_torch)
    install(TARGETS streamcheck_torch LIBRARY DESTINATION ${STREAMCHECK_INSTALL_LIBDIR})
  endif()
  # The PyTorch plugin is built where it runs, for the PyTorch it runs in
  # (tracer/frameworks/torch_plugin_cache.h): its sources and every header
  # they include, in the source tree's layout so the includes resolve.
  install(PROGRAMS ${PROJECT_SOURCE_DIR}/tracer/frameworks/pytorch/build_torch_plugin.py
          DESTINATION ${STREAMCHECK_INSTALL_LIBDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/tracer/frameworks/pytorch/
          DESTINATION ${STREAMCHECK_INSTALL_DATADIR}/torch_plugin/tracer/frameworks/pytorch
          FILES_MATCHING PATTERN "*.cpp" PATTERN "*.h")
  foreach(header frameworks/framework_hooks.h environment.h environment.def debug/debug_flags.h
                 debug/debug_switches.def debug/tracer_profile.h)
    get_filename_component(folder ${header} DIRECTORY)
    install(FILES ${PROJECT_SOURCE_DIR}/tracer/${header}
            DESTINATION ${STREAMCHECK_INSTALL_DATADIR}/torch_plugin/tracer/${folder})
  endforeach()
endif()

install(FILES ${PROJECT_SOURCE_DIR}/testdata/examples/two_streams.cu ${PROJECT_SOURCE_DIR}/testdata/examples/two_streams_fixed.cu
              ${PROJECT_SOURCE_DIR}/testdata/examples/pytorch_normal_sum.trace.txt
        DESTINATION ${STREAMCHECK_INSTALL_DATADIR}/examples)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${STREAMCHECK_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${STREAMCHECK_INSTALL_DOCDIR}/docs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/rules/docs/ DESTINATION ${STREAMCHECK_INSTALL_DOCDIR}/rules)
# The headers arrive with the per-test scopes (include/streamcheck/).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/streamcheck DESTINATION include OPTIONAL)

include(${CMAKE_CURRENT_LIST_DIR}/debian_package.cmake)
