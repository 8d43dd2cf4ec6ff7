# Density of states from KPM moments (pure arithmetic, serial).
hm_add_c_test(test_dos_kernel SOURCES test_dos_kernel.c LABELS cpu)
hm_add_c_test(test_dos_exact SOURCES test_dos_exact.c LABELS cpu)
hm_add_c_test(test_dos_errors SOURCES test_dos_errors.c LABELS cpu)
