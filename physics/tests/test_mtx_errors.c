/* Malformed Matrix Market files (the corpus in physics/tests/mtx/bad_*.mtx): each must fail with
 * HM_ERR_INPUT and a message "file:line: what was expected", on every rank, leaving the handle
 * NULL. Also: a missing file, NULL arguments, and (on 2+ ranks) one rank given a bad file while
 * the others read a good one: the bad rank names the problem, the others name the bad rank. */
#include <stdlib.h>
#include <string.h>
#include "testing.h"

typedef struct {
  const char *file;
  int line;            /* line the message must name (0: no line, e.g. the file cannot be opened) */
  const char *message; /* text that must follow "file:line: " */
} bad_case;

static const bad_case bad_matrices[] = {
    {"bad_banner.mtx", 1, "bad banner: expected '%%MatrixMarket matrix <coordinate|array>"},
    {"bad_banner_words.mtx", 1, "bad banner: expected 4 words after %%MatrixMarket"},
    {"bad_object.mtx", 1, "bad banner: unknown object 'vector': expected 'matrix'"},
    {"bad_format.mtx", 1, "bad banner: unknown format 'sparse': expected coordinate or array"},
    {"bad_field.mtx", 1, "bad banner: unknown field 'float': expected real, integer, complex or pattern"},
    {"bad_symmetry.mtx", 1, "bad banner: unknown symmetry 'symmetrical'"},
    {"bad_hermitian_real.mtx", 1, "bad banner: hermitian symmetry needs the complex field, found 'real'"},
    {"bad_pattern_skew.mtx", 1, "bad banner: the pattern field allows general or symmetric, found 'skew-symmetric'"},
    {"bad_pattern_array.mtx", 1, "bad banner: the pattern field needs coordinate format"},
    {"bad_empty.mtx", 1, "the file is empty; expected the banner"},
    {"bad_no_size.mtx", 4, "the file ends before the size line; expected 'rows columns entries'"},
    {"bad_size_fields.mtx", 3, "size line: expected 3 integers 'rows columns entries', found 2 fields"},
    {"bad_size_value.mtx", 2, "size line: columns 'x' is not an integer"},
    {"bad_size_zero.mtx", 2, "size line: rows '0' is not an integer in 1.."},
    {"bad_not_square.mtx", 4, "the matrix is 3 x 4: hamlet reads square matrices only"},
    {"bad_symmetric_rect.mtx", 2, "size line: a symmetric matrix must be square, found 3 x 4"},
    {"bad_row_range.mtx", 5, "row index 4 is out of range: expected 1..3"},
    {"bad_col_range.mtx", 3, "column index 0 is out of range: expected 1..3"},
    {"bad_index_text.mtx", 4, "row index 'a' is not an integer"},
    {"bad_value.mtx", 3, "value '1.0x' is not a number"},
    {"bad_value_inf.mtx", 4, "value 'inf' is not a finite number"},
    {"bad_value_nan.mtx", 3, "value 'nan' is not a finite number"},
    {"bad_value_overflow.mtx", 4, "value '1e400' overflows a double"},
    {"bad_complex_overflow.mtx", 3, "imaginary part '-2e308' overflows a double"},
    {"bad_nul.mtx", 4, "the line holds a NUL byte at column 6: a Matrix Market file is text"},
    {"bad_integer_value.mtx", 4, "value '2.5' is not an integer (the field is integer)"},
    {"bad_too_few.mtx", 4, "the file ends after 2 of the 3 entries announced on line 2"},
    {"bad_too_many.mtx", 6, "more entries than the 2 announced on line 2"},
    {"bad_fields.mtx", 4, "expected 3 fields 'row column value', found 2"},
    {"bad_extra_field.mtx", 3, "expected 3 fields 'row column value', found 4"},
    {"bad_complex_fields.mtx", 3, "expected 4 fields 'row column real imaginary', found 3"},
    {"bad_upper.mtx", 4, "entry (1, 2) lies above the diagonal: a symmetric file stores only the lower triangle"},
    {"bad_skew_diag.mtx", 4, "entry (2, 2) is not below the diagonal: a skew-symmetric file"},
    {"bad_hermitian_diag.mtx", 4, "diagonal entry (2, 2) of a Hermitian matrix must be real, found imaginary part 0.5"},
    {"bad_array_matrix.mtx", 1, "a matrix must be in coordinate format, found array"},
};

static const bad_case bad_vectors[] = {
    {"bad_vec_coordinate.mtx", 1, "a right-hand side must be in array format, found coordinate"},
    {"bad_vec_symmetric.mtx", 1, "a right-hand side must be general"},
    {"bad_vec_columns.mtx", 2, "a right-hand side has 1 column, found 2"},
    {"bad_vec_too_few.mtx", 6, "the file ends after 3 of the 4 values announced on line 3"},
    {"bad_vec_too_many.mtx", 7, "more values than the 4 announced on line 2"},
    {"bad_vec_value.mtx", 5, "imaginary part 'zero' is not a number"},
    {"bad_vec_fields.mtx", 4, "expected 2 fields 'real imaginary', found 1"},
    {"bad_pattern_array.mtx", 1, "bad banner: the pattern field needs coordinate format"},
    {"good_vec4.mtx", 2, "the vector has 4 rows but the distribution 5"},
};

static void path_of(const char *dir, const char *file, char *path, size_t size) {
  snprintf(path, size, "%s/physics/tests/mtx/%s", dir, file);
}

static void needle_of(const bad_case *c, char *needle, size_t size) {
  if (c->line) snprintf(needle, size, "%s:%d: %s", c->file, c->line, c->message);
  else snprintf(needle, size, "%s", c->message);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  const char *src = getenv("HAMLET_SOURCE_DIR");
  if (!src) {
    fprintf(stderr, "HAMLET_SOURCE_DIR is not set (ctest sets it)\n");
    MPI_Finalize();
    return 1;
  }
  hm_context *ctx = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  char path[1024], needle[512];

  for (size_t c = 0; c < sizeof bad_matrices / sizeof bad_matrices[0]; c++) {
    path_of(src, bad_matrices[c].file, path, sizeof path);
    needle_of(&bad_matrices[c], needle, sizeof needle);
    hm_matrix *A = (hm_matrix *)path; /* must come back NULL */
    HM_TEST_FAILS(hm_mtx_read(ctx, path, &A), HM_ERR_INPUT, needle);
    HM_TEST_ASSERT(A == NULL, "%s: a failed read must leave A NULL", bad_matrices[c].file);
  }
  /* The header query fails the same way on header problems. */
  path_of(src, "bad_hermitian_real.mtx", path, sizeof path);
  HM_TEST_FAILS(hm_mtx_info(ctx, path, NULL, NULL, NULL, NULL, NULL), HM_ERR_INPUT,
                "bad_hermitian_real.mtx:1: bad banner: hermitian symmetry needs the complex field");
  path_of(src, "bad_size_value.mtx", path, sizeof path);
  HM_TEST_FAILS(hm_mtx_info(NULL, path, NULL, NULL, NULL, NULL, NULL), HM_ERR_INPUT,
                "bad_size_value.mtx:2: size line: columns 'x'");

  hm_dist *dist4 = NULL, *dist5 = NULL;
  HM_TEST_OK(hm_dist_create(ctx, 4, 1, 1.0, &dist4));
  HM_TEST_OK(hm_dist_create(ctx, 5, 1, 1.0, &dist5));
  for (size_t c = 0; c < sizeof bad_vectors / sizeof bad_vectors[0]; c++) {
    path_of(src, bad_vectors[c].file, path, sizeof path);
    needle_of(&bad_vectors[c], needle, sizeof needle);
    hm_mvec *b = (hm_mvec *)path;
    const hm_dist *dist = strcmp(bad_vectors[c].file, "good_vec4.mtx") == 0 ? dist5 : dist4;
    HM_TEST_FAILS(hm_mtx_read_vector(ctx, path, dist, &b), HM_ERR_INPUT, needle);
    HM_TEST_ASSERT(b == NULL, "%s: a failed read must leave b NULL", bad_vectors[c].file);
  }
  /* The good files themselves read. */
  hm_mvec *b = NULL;
  path_of(src, "good_vec4.mtx", path, sizeof path);
  HM_TEST_OK(hm_mtx_read_vector(ctx, path, dist4, &b));
  HM_TEST_OK(hm_mvec_destroy(&b));
  hm_matrix *A = NULL;
  path_of(src, "good_small.mtx", path, sizeof path);
  HM_TEST_OK(hm_mtx_read(ctx, path, &A));
  HM_TEST_OK(hm_matrix_destroy(&A));

  /* Missing file and NULL arguments. */
  path_of(src, "no_such_file.mtx", path, sizeof path);
  HM_TEST_FAILS(hm_mtx_read(ctx, path, &A), HM_ERR_INPUT, "cannot open Matrix Market file");
  HM_TEST_FAILS(hm_mtx_read_vector(ctx, path, dist4, &b), HM_ERR_INPUT, "no_such_file.mtx");
  HM_TEST_FAILS(hm_mtx_info(ctx, path, NULL, NULL, NULL, NULL, NULL), HM_ERR_INPUT, "cannot open");
  HM_TEST_FAILS(hm_mtx_read(ctx, NULL, &A), HM_ERR_ARGUMENT, "path");
  HM_TEST_FAILS(hm_mtx_read(NULL, path, &A), HM_ERR_ARGUMENT, "ctx");
  HM_TEST_FAILS(hm_mtx_read(ctx, path, NULL), HM_ERR_ARGUMENT, "A is NULL");
  HM_TEST_FAILS(hm_mtx_read_vector(ctx, path, NULL, &b), HM_ERR_ARGUMENT, "dist");
  HM_TEST_FAILS(hm_mtx_info(ctx, NULL, NULL, NULL, NULL, NULL, NULL), HM_ERR_ARGUMENT, "path is NULL");

  /* One rank reads a bad file, the others a good one: nobody hangs, everybody fails. */
  if (nprocs > 1) {
    path_of(src, rank == nprocs - 1 ? "bad_too_few.mtx" : "good_small.mtx", path, sizeof path);
    snprintf(needle, sizeof needle, "rank %d failed to read", nprocs - 1);
    HM_TEST_FAILS(hm_mtx_read(ctx, path, &A), HM_ERR_INPUT,
                  rank == nprocs - 1 ? "bad_too_few.mtx:4: the file ends after 2 of the 3 entries" : needle);
    path_of(src, rank == nprocs - 1 ? "bad_banner.mtx" : "good_small.mtx", path, sizeof path); /* header stage */
    HM_TEST_FAILS(hm_mtx_read(ctx, path, &A), HM_ERR_INPUT, rank == nprocs - 1 ? "bad_banner.mtx:1: bad banner" : needle);
    path_of(src, rank == 0 ? "bad_vec_value.mtx" : "good_vec4.mtx", path, sizeof path);
    HM_TEST_FAILS(hm_mtx_read_vector(ctx, path, dist4, &b), HM_ERR_INPUT,
                  rank == 0 ? "bad_vec_value.mtx:5:" : "rank 0 failed to read");
  }

  HM_TEST_OK(hm_dist_destroy(&dist4));
  HM_TEST_OK(hm_dist_destroy(&dist5));
  HM_TEST_OK(hm_context_destroy(&ctx));
  return hm_test_finish();
}
