// out[i] = 2 in[i], the way MODE (a string parameter, reaching the kernel
// as a token) names: mul and add agree, sub is wrong on purpose.
#define APPLY_mul(x) ((x) * 2.0f)
#define APPLY_add(x) ((x) + (x))
#define APPLY_sub(x) ((x) - (x))
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

__kernel void mode(__global const float* in, __global float* out) {
    const int i = get_global_id(0);
    out[i] = CAT(APPLY_, MODE)(in[i]);
}
