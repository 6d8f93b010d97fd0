/* The benchmark data's CSV writer: rows of doubles (row-major, native byte order) on
 * standard input become CSV text with a printf format per column: C's printf, because
 * Python's formatting of every cell would take longer than most benchmarks. Optionally
 * also writes
 *   - the same rows in LIBSVM/LIBLINEAR's sparse text ("label i:value ..."), with the
 *     very text of the CSV's cells, so every tool reads the same numbers;
 *   - the values as a reader gets them back from the text (strtod of each written
 *     cell), raw doubles, for the harness's agreement checks.
 * Usage: csvwrite HEADER FORMATS OUT.csv [--svm LABEL_COLUMN OUT.svm] [--values OUT.f64]
 *   HEADER: the header line (without its newline); FORMATS: one printf format per
 *   column, separated by '|' (a format converting with d prints the value as a long).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 4096

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: csvwrite HEADER FORMATS OUT.csv [--svm COL OUT.svm] [--values OUT.f64]\n");
    return 2;
  }
  static char* formats[MAX_COLS];
  static int integer[MAX_COLS];
  long p = 0;
  for (char* f = strtok(argv[2], "|"); f; f = strtok(NULL, "|")) {
    if (p == MAX_COLS) return 2;
    integer[p] = f[strlen(f) - 1] == 'd';
    formats[p++] = f;
  }
  FILE* csv = fopen(argv[3], "w");
  FILE* svm = NULL;
  FILE* values = NULL;
  long label = -1;
  for (int a = 4; a < argc; ++a) {
    if (!strcmp(argv[a], "--svm") && a + 2 < argc) {
      label = atol(argv[a + 1]);
      svm = fopen(argv[a + 2], "w");
      if (!svm) return 1;
      a += 2;
    } else if (!strcmp(argv[a], "--values") && a + 1 < argc) {
      values = fopen(argv[++a], "wb");
      if (!values) return 1;
    } else {
      return 2;
    }
  }
  if (!csv) return 1;
  static char out_buf[1 << 20], svm_buf[1 << 20];
  setvbuf(csv, out_buf, _IOFBF, sizeof out_buf);
  if (svm) setvbuf(svm, svm_buf, _IOFBF, sizeof svm_buf);
  fprintf(csv, "%s\n", argv[1]);
  double* row = malloc(p * sizeof *row);
  double* parsed = malloc(p * sizeof *parsed);
  char (*cell)[64] = malloc(p * sizeof *cell);
  while (fread(row, sizeof *row, p, stdin) == (size_t)p) {
    for (long j = 0; j < p; ++j) {
      if (integer[j]) {
        snprintf(cell[j], sizeof cell[j], formats[j], (long)row[j]);
        parsed[j] = (double)(long)row[j];
      } else {
        snprintf(cell[j], sizeof cell[j], formats[j], row[j]);
        parsed[j] = strtod(cell[j], NULL);
      }
      fputs(cell[j], csv);
      putc(j + 1 < p ? ',' : '\n', csv);
    }
    if (svm) {
      fputs(cell[label], svm);
      for (long j = 0, i = 1; j < p; ++j)
        if (j != label) fprintf(svm, " %ld:%s", i++, cell[j]);
      putc('\n', svm);
    }
    if (values && fwrite(parsed, sizeof *parsed, p, values) != (size_t)p) return 1;
  }
  if (fclose(csv) || (svm && fclose(svm)) || (values && fclose(values))) return 1;
  return 0;
}
