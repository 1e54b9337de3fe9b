# ASan + UBSan for the whole build when GPUALERT_SANITIZE is on (CI runs the suite both ways).
if(GPUALERT_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
