/* Unnormalised subset-tree (SST) Gram matrix of the trees in a file, one "|BT| (tree) |ET|" per line,
 * computed with SVM-Light-TK's tree_kernel_not_norm.  Usage: ngtk_gram_driver LAMBDA TREES OUT.
 * OUT receives the upper triangle (i <= j, row by row) as float64; stdout the CPU seconds of the Gram loop. */
#include <time.h>
#include "svm_common.h"
double tree_kernel_not_norm(KERNEL_PARM *kernel_parm, DOC *a, DOC *b, int i, int j);

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
  KERNEL_PARM kp;
  long nol, wol, ll, totwords = 0, n = 0, i, j;
  double label, t0, t1, k;
  char *line;
  DOC *docs;
  FILE *in, *out;
  if (argc != 4) { fprintf(stderr, "usage: %s LAMBDA TREES OUT\n", argv[0]); return 2; }
  memset(&kp, 0, sizeof kp);
  kp.kernel_type = 5; kp.first_kernel = 1; kp.second_kernel = 1; kp.normalization = 0;
  kp.combination_type = 'T'; kp.lambda = atof(argv[1]); kp.mu = 0.4; kp.tree_constant = 1;
  kp.vectorial_approach_standard_kernel = 'S'; kp.vectorial_approach_tree_kernel = 'S';
  strcpy(kp.custom, "empty");
  LAMBDA = kp.lambda; LAMBDA2 = LAMBDA * LAMBDA; MU = kp.mu; TKGENERALITY = 1; PARAM_VECT = 0;
  verbosity = 0;
  nol_ll(argv[2], &nol, &wol, &ll);
  ll += 2;
  line = (char *)my_malloc(ll);
  docs = (DOC *)my_malloc(sizeof(DOC) * (nol + 1));
  if ((in = fopen(argv[2], "r")) == NULL) { perror(argv[2]); return 1; }
  while (fgets(line, (int)ll, in)) {
    docs[n].docnum = n;
    if (!parse_document(line, &docs[n], &label, &totwords, wol, &kp)) { fprintf(stderr, "parse error line %ld\n", n); return 1; }
    n++;
  }
  fclose(in);
  if ((out = fopen(argv[3], "wb")) == NULL) { perror(argv[3]); return 1; }
  double *row = (double *)my_malloc(sizeof(double) * (n + 1));
  double total = 0;
  for (i = 0; i < n; i++) {
    t0 = cpu_seconds();
    for (j = i; j < n; j++) {
      k = tree_kernel_not_norm(&kp, &docs[i], &docs[j], 0, 0);
      row[j - i] = k;
    }
    t1 = cpu_seconds();
    total += t1 - t0;
    fwrite(row, sizeof(double), n - i, out);
  }
  fclose(out);
  printf("%ld %.6f\n", n, total);
  return 0;
}
