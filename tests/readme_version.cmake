# cmake -DREADME=path -DEXPECT=text -P readme_version.cmake: fails unless README contains EXPECT
file(READ "${README}" text)
string(FIND "${text}" "${EXPECT}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${README} does not name ${EXPECT}: update it to the project's version")
endif()
message(STATUS "${README} names ${EXPECT}")
