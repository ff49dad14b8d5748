// Tunable median filter, after Falch & Elster, "Machine learning-based
// auto-tuning for enhanced performance portability of OpenCL
// applications" (2017), Table 1:
//
//   out[y][x] = median { in[cy(y + j - FS/2)][cx(x + i - FS/2)] : i, j < FS }
//
// where cx and cy clamp a coordinate to the image (the border repeats).
// Pixels are the integers 0 to 255 stored as floats (the paper's uchar
// pixels in the form collect passes), so the histogram algorithm needs 256
// bins. Width and height are arguments, so one program serves every image
// size; everything else comes from the build options:
//
//   FS          filter side (odd); the window holds FS * FS pixels
//   XWG, YWG    work-group size in x and y
//   XPPT, YPPT  pixels per work-item in x and y, interleaved: work-item lx
//               computes x = group's first x + lx + i * XWG, i < XPPT,
//               so that neighbouring work-items read neighbouring pixels
//   IMG         1: read the input through a 2D image (the sampler clamps);
//               0: from the global buffer, clamping by hand
//   LMEM        1: the work-group stages its tile and halo in local memory
//   ALG         0: partial sort (compare-exchange selection up to the
//               middle element); 1: histogram of the 256 pixel values
//   LARR        1: the sort or histogram array of each work-item lives in
//               local memory; 0: in private memory
//
// The loops hold no data-dependent branches (compare-exchange with fmin
// and fmax, the histogram walk with a comparison summed): PoCL's
// work-group compiler is slow over conditionals in kernels with barriers,
// and GPUs diverge on them.

#define HF (FS / 2)
#define NN (FS * FS)

// Pixels of one work-group.
#define TX (XWG * XPPT)
#define TY (YWG * YPPT)

// The kernel takes the image argument whatever IMG says, so that every
// configuration shares one signature; a device without images gets a
// buffer there (see datasets.Image2D) and no configuration with IMG 1.
#ifdef __IMAGE_SUPPORT__
#define IMAGE_T __read_only image2d_t
__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
#else
#define IMAGE_T __global const float*
#endif

// GLD reads the input at (x, y) clamped to the image.
#if IMG
#define GLD(gx, gy) read_imagef(srcImg, smp, (int2)((gx), (gy))).x
#else
#define GLD(gx, gy) src[clamp((gy), 0, height - 1) * width + clamp((gx), 0, width - 1)]
#endif

#if LMEM
// The tile with its halo, in floats; Geometry in median.go computes the same.
#define LW (TX + 2 * HF)
#define LH (TY + 2 * HF)
#define RD(x, y) tile[((y) - gy0 + HF) * LW + (x) - gx0 + HF]
#else
#define RD(x, y) GLD(x, y)
#endif

__kernel __attribute__((reqd_work_group_size(XWG, YWG, 1)))
void median(const int width, const int height,
            __global const float* restrict src, IMAGE_T srcImg,
            __global float* restrict dst) {
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);
  const int gx0 = get_group_id(0) * TX;
  const int gy0 = get_group_id(1) * TY;

#if LMEM
  __local float tile[LH * LW];
  for (int ty = ly; ty < LH; ty += YWG) {
    for (int tx = lx; tx < LW; tx += XWG) {
      tile[ty * LW + tx] = GLD(gx0 - HF + tx, gy0 - HF + ty);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#endif

#if ALG == 0
#if LARR
  __local float arrs[XWG * YWG * NN];
  __local float* arr = arrs + (ly * XWG + lx) * NN;
#else
  float arr[NN];
#endif
#else
#if LARR
  __local uchar hists[XWG * YWG * 256];
  __local uchar* hist = hists + (ly * XWG + lx) * 256;
#else
  uchar hist[256];
#endif
#endif

  for (int py = 0; py < YPPT; py++) {
    const int y = gy0 + ly + py * YWG;
    for (int px = 0; px < XPPT; px++) {
      const int x = gx0 + lx + px * XWG;
      float m;
#if ALG == 0
      for (int j = 0; j < FS; j++) {
        for (int i = 0; i < FS; i++) {
          arr[j * FS + i] = RD(x + i - HF, y + j - HF);
        }
      }
      // After pass a, arr[a] holds the a-th smallest value.
      for (int a = 0; a <= NN / 2; a++) {
        for (int b = a + 1; b < NN; b++) {
          const float u = arr[a], v = arr[b];
          arr[a] = fmin(u, v);
          arr[b] = fmax(u, v);
        }
      }
      m = arr[NN / 2];
#else
      for (int b = 0; b < 256; b++) {
        hist[b] = 0;
      }
      for (int j = 0; j < FS; j++) {
        for (int i = 0; i < FS; i++) {
          hist[(int)RD(x + i - HF, y + j - HF)]++;
        }
      }
      // The median is the first value whose cumulative count passes
      // NN / 2: the number of values whose count does not.
      int acc = 0, med = 0;
      for (int b = 0; b < 256; b++) {
        acc += hist[b];
        med += acc <= NN / 2;
      }
      m = (float)med;
#endif
      if (x < width && y < height) {
        dst[y * width + x] = m;
      }
    }
  }
}
