# The hardening a Debian package expects (and hardening-check verifies): stack
# protector, _FORTIFY_SOURCE=2, full RELRO with now-binding, PIE executables,
# stack-clash protection and control-flow protection.
# On by default for every build, so what the tests exercise is what ships.
option(GPUALERT_HARDEN "Stack protector, _FORTIFY_SOURCE=2, full RELRO, now-binding, PIE" ON)
if(GPUALERT_HARDEN)
  include(CheckPIESupported)
  check_pie_supported(LANGUAGES C CXX)
  add_compile_options(-fstack-protector-strong -fstack-clash-protection)
  # Control-flow integrity (Intel CET: IBT and shadow stack markings), where the target has it.
  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag(-fcf-protection=full GPUALERT_HAS_CF_PROTECTION)
  if(GPUALERT_HAS_CF_PROTECTION)
    add_compile_options(-fcf-protection=full)
  endif()
  # _FORTIFY_SOURCE needs optimisation, and ASan replaces the same functions.
  if(NOT GPUALERT_SANITIZE AND NOT GPUALERT_FUZZ)
    add_compile_options("$<$<NOT:$<CONFIG:Debug>>:-U_FORTIFY_SOURCE;-D_FORTIFY_SOURCE=2>")
  endif()
  add_link_options(-Wl,-z,relro -Wl,-z,now)
endif()
