# Input decks: schema, strict values, the bad/good corpus in tests/decks and every deck in inputs/.
hm_add_c_test(test_deck SOURCES test_deck.c LABELS cpu)
target_include_directories(test_deck PRIVATE ${CMAKE_SOURCE_DIR}/io)
# The deck's input files (every file key of the schema protected or written) and those they imply.
hm_add_c_test(test_deck_files SOURCES test_deck_files.c LABELS cpu)
target_include_directories(test_deck_files PRIVATE ${CMAKE_SOURCE_DIR}/io)
