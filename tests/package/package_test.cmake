# cmake -P script behind the `package` test (see CMakeLists.txt here for the variables it gets).
# Steps: build the installable targets; install into WORK_DIR/prefix; check the installed files
# and the exported symbols; build and run examples/ through find_package (shared, then static)
# and through pkg-config.
cmake_minimum_required(VERSION 3.20)

set(prefix ${WORK_DIR}/prefix)
set(libdir ${prefix}/${LIBDIR})
set(ENV{POCL_CACHE_DIR} ${POCL_CACHE_DIR})
set(config_args)
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()

function(step what)
  message(STATUS "package: ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package: ${what} failed (${rc})")
  endif()
endfunction()

# The example's executable (multi-config generators put it in a per-configuration folder).
function(find_example dir out)
  foreach(candidate ${dir}/layer_norm_example ${dir}/${CONFIG}/layer_norm_example)
    if(EXISTS ${candidate})
      set(${out} ${candidate} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "package: no layer_norm_example in ${dir}")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# ---- install --------------------------------------------------------------------------------
step("build ${TARGETS}" ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGETS} ${config_args})
step("install into ${prefix}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} ${config_args})

foreach(f ${INCLUDEDIR}/clnorm.h ${INCLUDEDIR}/clnorm_version.h
          ${LIBDIR}/libclnorm.so ${LIBDIR}/libclnorm.so.${SOVERSION} ${LIBDIR}/libclnorm.so.${VERSION}
          ${LIBDIR}/libclnorm.a ${LIBDIR}/pkgconfig/clnorm.pc
          ${CMAKE_DIR}/clnormConfig.cmake ${CMAKE_DIR}/clnormConfigVersion.cmake ${CMAKE_DIR}/clnormTargets.cmake)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "package: ${f} is not installed")
  endif()
endforeach()

# ---- exported symbols: exactly the functions the header declares with CLNORM_API ------------
if(NOT NM)
  find_program(NM nm REQUIRED)
endif()
execute_process(COMMAND ${NM} -D --defined-only ${libdir}/libclnorm.so
  OUTPUT_VARIABLE nm_out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "package: ${NM} -D --defined-only failed (${rc})")
endif()
string(REGEX MATCHALL "[^\n]+" nm_lines "${nm_out}")
set(exported)
foreach(line IN LISTS nm_lines)
  # "address type name"; the name may carry a @version suffix
  if(line MATCHES "^[0-9a-fA-F]* *[A-Za-z] ([^ @]+)")
    set(name ${CMAKE_MATCH_1})
    if(NOT name MATCHES "^clnorm_" OR name MATCHES "^clnorm__")
      message(FATAL_ERROR "package: libclnorm.so exports ${name}, which is not part of the API")
    endif()
    list(APPEND exported ${name})
  endif()
endforeach()
file(STRINGS ${prefix}/${INCLUDEDIR}/clnorm.h api_lines REGEX "^CLNORM_API ")
set(declared)
foreach(line IN LISTS api_lines)
  if(line MATCHES "(clnorm_[a-z0-9_]+)\\(")
    list(APPEND declared ${CMAKE_MATCH_1})
  endif()
endforeach()
list(SORT exported)
list(SORT declared)
if(NOT exported STREQUAL declared)
  message(FATAL_ERROR "package: exported symbols differ from the header's CLNORM_API functions\n"
                      "  exported: ${exported}\n  declared: ${declared}")
endif()
list(LENGTH exported n)
message(STATUS "package: libclnorm.so exports the ${n} API functions and nothing else")

# ---- find_package(clnorm): the shared library, then the static one --------------------------
foreach(variant shared static)
  set(dir ${WORK_DIR}/cmake-${variant})
  if(variant STREQUAL "static")
    set(static ON)
  else()
    set(static OFF)
  endif()
  set(build_type)
  if(CONFIG)
    set(build_type -DCMAKE_BUILD_TYPE=${CONFIG})
  endif()
  step("configure examples/ (${variant}) with CMAKE_PREFIX_PATH=${prefix}"
    ${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${dir} -G ${GENERATOR}
      -DCMAKE_C_COMPILER=${C_COMPILER} "-DCMAKE_C_FLAGS=-Wall -Wextra -Werror" ${build_type}
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
      -DCLNORM_EXAMPLE_STATIC=${static})
  file(STRINGS ${dir}/CMakeCache.txt found REGEX "^clnorm_DIR:")
  if(NOT found STREQUAL "clnorm_DIR:PATH=${prefix}/${CMAKE_DIR}")
    message(FATAL_ERROR "package: the example found another clnorm: ${found}")
  endif()
  step("build examples/ (${variant})" ${CMAKE_COMMAND} --build ${dir} ${config_args})
  find_example(${dir} exe)
  # Linked statically, the executable defines the API itself; linked to the shared library, not.
  execute_process(COMMAND ${NM} ${exe} OUTPUT_VARIABLE syms)
  if(static AND NOT syms MATCHES " [Tt] clnorm_layer_norm_forward\n")
    message(FATAL_ERROR "package: ${exe} does not contain clnorm (static link expected)")
  elseif(NOT static AND syms MATCHES " [Tt] clnorm_layer_norm_forward\n")
    message(FATAL_ERROR "package: ${exe} contains clnorm (shared link expected)")
  endif()
  step("run the example (find_package, ${variant})" ${exe})
endforeach()

# ---- pkg-config --------------------------------------------------------------------------------
if(NOT PKG_CONFIG)
  message(STATUS "package: no pkg-config program: the pkg-config part is skipped")
  return()
endif()
set(ENV{PKG_CONFIG_PATH} ${libdir}/pkgconfig)
# The prefix is a real path on this machine: a sysroot in the environment (a cross or unpacked
# toolchain, as on the GPU test machine) would be prepended to its -I/-L paths.
unset(ENV{PKG_CONFIG_SYSROOT_DIR})
set(pc_args)
if(NOT PC_RELOCATABLE) # clnorm.pc names the configured CMAKE_INSTALL_PREFIX: point it here
  set(pc_args --define-variable=prefix=${prefix})
endif()
execute_process(COMMAND ${PKG_CONFIG} ${pc_args} --modversion clnorm OUTPUT_VARIABLE pc_version
  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT pc_version STREQUAL VERSION)
  message(FATAL_ERROR "package: pkg-config --modversion clnorm gave '${pc_version}' (${rc}), expected ${VERSION}")
endif()
execute_process(COMMAND ${PKG_CONFIG} ${pc_args} --cflags --libs clnorm OUTPUT_VARIABLE pc_flags
  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "package: pkg-config --cflags --libs clnorm failed (${rc})")
endif()
message(STATUS "package: pkg-config --cflags --libs clnorm: ${pc_flags}")
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
file(MAKE_DIRECTORY ${WORK_DIR}/pkgconfig)
set(exe ${WORK_DIR}/pkgconfig/layer_norm_example)
step("compile the example with pkg-config's flags"
  ${C_COMPILER} -Wall -Wextra -Werror ${EXAMPLE_DIR}/layer_norm_example.c ${pc_flags} -lm -o ${exe})
set(ENV{LD_LIBRARY_PATH} "${libdir}:$ENV{LD_LIBRARY_PATH}")
step("run the example (pkg-config)" ${exe})
message(STATUS "package: all steps passed")
