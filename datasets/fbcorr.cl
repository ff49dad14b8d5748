// Tunable filterbank correlation, after Bergstra, Pinto and Cox,
// "Machine learning for predictive auto-tuning with boosted regression
// trees" (2012), sections 3 and 4, and Pinto and Cox (2012):
//
//   Z[r][c][k] = sum_{h<H} sum_{w<W} sum_{d<D} X[r+h][c+w][d] * Fb[k][h][w][d]
//
// a valid correlation: Z has R-H+1 rows, C-W+1 columns and F channels. The
// channels (d, k) are the fastest-varying index of every array. R and C are
// arguments, so one program serves every image size; the rest comes from
// the build options:
//
//   H, W, D, F  filter height and width, image depth, filters
//   BH, BW      block (work-group) height and width: one output pixel a
//               work-item
//   NFR         filter rows per pass: each pass stages NFR + BH - 1 image
//               rows of the block, all D channels, in local memory
//   N4          float4 accumulators a work-item: it computes 4 * N4
//               channels; the third NDRange dimension covers the filters
//               in groups of 4 * N4 (n_output_4s "all" is N4 = ceil(F/4))
//   SPILL       1: keep the work-item's output position in local memory
//               instead of a register
//   IMUL        1: integer index products with mul24
//   PAD         1: pad each staged pixel's D channels by one float
//   TEX         1: stage the image through a 1D image buffer (the paper's
//               texture fetches); 0: through global pointers
//
// The filterbank lives in global memory, padded by collect's arguments to
// a multiple of 8 zero filters so that every group of 4 * N4 reads inside
// it, rather than in constant memory, whose 64 KiB on NVIDIA devices would
// cap F * H * W * D (the paper splits such filterbanks over calls).

#define TW (BW + W - 1)  // staged columns
#define TH (BH + NFR - 1)  // staged rows a pass
#define DP (D + PAD)  // floats a staged pixel

#if IMUL
#define IMUL(a, b) mul24((a), (b))
#else
#define IMUL(a, b) ((a) * (b))
#endif

// One signature for every configuration; a device without images gets a
// buffer in place of the image (see datasets.ImageBuffer) and no TEX 1.
#ifdef __IMAGE_SUPPORT__
#define IMAGE_T __read_only image1d_buffer_t
#else
#define IMAGE_T __global const float*
#endif

#if TEX
#define XLD(i) read_imagef(Ximg, (int)(i)).x
#else
#define XLD(i) X[i]
#endif

#define HWD (H * W * D)

__kernel __attribute__((reqd_work_group_size(BW, BH, 1)))
void fbcorr(const int R, const int C,
            __global const float* restrict X, IMAGE_T Ximg,
            __global const float* restrict Fb,
            __global float* restrict Z) {
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);
  const int c0 = get_group_id(0) * BW;
  const int r0 = get_group_id(1) * BH;
  const int c = c0 + lx;
  const int r = r0 + ly;
  const int k0 = get_group_id(2) * (4 * N4);
  const int OR = R - H + 1;
  const int OC = C - W + 1;

  __local float sX[TH * TW * DP];
#if SPILL
  __local int sOut[BH * BW];
  sOut[IMUL(ly, BW) + lx] = IMUL(r, OC) + c;
#define OUTPIX sOut[IMUL(ly, BW) + lx]
#else
  const int outPix = IMUL(r, OC) + c;
#define OUTPIX outPix
#endif

  float4 v[N4];
  for (int n = 0; n < N4; n++) {
    v[n] = (float4)(0.0f);
  }

  for (int h0 = 0; h0 < H; h0 += NFR) {
    barrier(CLK_LOCAL_MEM_FENCE);
    // Rows and columns past the image are clamped: they feed only outputs
    // past Z's edge, which are never stored.
    for (int i = IMUL(ly, BW) + lx; i < TH * TW * D; i += BW * BH) {
      const int d = i % D;
      const int t = i / D;
      const int tc = t % TW;
      const int tr = t / TW;
      const int gr = min(r0 + h0 + tr, R - 1);
      const int gc = min(c0 + tc, C - 1);
      sX[IMUL(IMUL(tr, TW) + tc, DP) + d] = XLD((size_t)(IMUL(gr, C) + gc) * D + d);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int hh = 0; hh < NFR && h0 + hh < H; hh++) {
      const int h = h0 + hh;
      for (int w = 0; w < W; w++) {
        for (int d = 0; d < D; d++) {
          const float u = sX[IMUL(IMUL(ly + hh, TW) + lx + w, DP) + d];
          __global const float* f = Fb + (size_t)k0 * HWD + (h * W + w) * D + d;
          for (int n = 0; n < N4; n++) {
            const float4 fv = (float4)(f[(4 * n) * HWD], f[(4 * n + 1) * HWD],
                                       f[(4 * n + 2) * HWD], f[(4 * n + 3) * HWD]);
            v[n] += u * fv;
          }
        }
      }
    }
  }

  if (r < OR && c < OC) {
    __global float* z = Z + (size_t)OUTPIX * F + k0;
    for (int n = 0; n < N4; n++) {
      const int k = k0 + 4 * n;
      if (k + 4 <= F) {
        vstore4(v[n], 0, z + 4 * n);
      } else {
        const float e[4] = {v[n].x, v[n].y, v[n].z, v[n].w};
        for (int j = 0; j < 4 && k + j < F; j++) {
          z[4 * n + j] = e[j];
        }
      }
    }
  }
}
