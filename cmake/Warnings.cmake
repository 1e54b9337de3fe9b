# One warning set for every target of the project.
add_library(gpualert_warnings INTERFACE)
target_compile_options(gpualert_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wnull-dereference
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)

# CLI11's header trips GCC 12's -Wnull-dereference when inlined (a false
# positive inside the library); programs that parse arguments with it use this.
add_library(gpualert_cli11 INTERFACE)
target_link_libraries(gpualert_cli11 INTERFACE CLI11::CLI11)
target_compile_options(gpualert_cli11 INTERFACE -Wno-null-dereference)
