# cmake -DBUILD_DIR=... -DPROJECT_DIR=... -DWORK_DIR=... -DGENERATOR=... -DCXX_COMPILER=... -P run_consumer.cmake
# Install the main build into WORK_DIR/prefix, then build and run the consumer project against it.
foreach(var BUILD_DIR PROJECT_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${what}:\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer test: '${what}' failed (exit ${rc})")
  endif()
endfunction()

step("cmake --install ${BUILD_DIR} --prefix ${prefix}"
     "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
if(NOT EXISTS "${prefix}/lib/cmake/Kindling/KindlingConfig.cmake")
  message(FATAL_ERROR "consumer test: the install has no lib/cmake/Kindling/KindlingConfig.cmake")
endif()
# Only the installed copy may be found: CMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY keeps a registered build
# tree out, and no path into the source or build tree is passed.
step("configure the consumer"
     "${CMAKE_COMMAND}" -S "${PROJECT_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
     -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix}
     -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON -DCMAKE_BUILD_TYPE=Release)
step("build the consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
step("run the consumer" "${WORK_DIR}/build/consumer")
step("run the installed kindling-doctor" "${prefix}/bin/kindling-doctor")
