// After cuda-samples jacobiCudaGraphs and cudaGraphsPerfScaling: an iteration captured once
// and replayed, a status query that narrows the region, and streams kept in an array with
// the capture begun and ended on named elements.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define N_STREAMS 4

__global__ void JacobiMethod(const float *A, const double *b, float conv, double *x, double *x_new, double *sum)
{
	x_new[threadIdx.x] = b[threadIdx.x] - A[threadIdx.x] * x[threadIdx.x];
}

__global__ void finalError(double *x, double *g_sum) { *g_sum = x[0]; }

static cudaStream_t streams[N_STREAMS];
static cudaEvent_t fork_ev, join_ev[N_STREAMS];

double JacobiMethodGpuCudaGraphExecKernelSetParams(const float *A, const double *b, const float conv_threshold,
						   const int max_iter, double *x, double *x_new, cudaStream_t stream)
{
	double sum = 0.0, *d_sum = NULL;
	cudaGraph_t graph;
	cudaGraphExec_t graphExec = NULL;
	if (cudaMalloc(&d_sum, sizeof(double)) != cudaSuccess)
		return -1.0;
	if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) != cudaSuccess)
		return -1.0;
	cudaStreamCaptureStatus st;
	if (cudaStreamIsCapturing(stream, &st) != cudaSuccess || st == cudaStreamCaptureStatusNone)
		exit(EXIT_FAILURE);
	cudaMemsetAsync(d_sum, 0, sizeof(double), stream);
	JacobiMethod<<<1, 512, 0, stream>>>(A, b, conv_threshold, x, x_new, d_sum);
	cudaMemcpyAsync(&sum, d_sum, sizeof(double), cudaMemcpyDeviceToHost, stream);
	if (sum > 1e9)
		cudaStreamSynchronize(stream);  // expect: error CG301
	if (cudaStreamEndCapture(stream, &graph) != cudaSuccess)
		return -1.0;
	// clean edit: the status check above says nothing past the end
	cudaDeviceSynchronize();
	if (cudaGraphInstantiate(&graphExec, graph, NULL, NULL, 0) != cudaSuccess)
		return -1.0;
	for (int k = 0; k < max_iter; k++) {
		if (cudaGraphLaunch(graphExec, stream) != cudaSuccess)
			break;
		cudaStreamSynchronize(stream);
		if (sum <= conv_threshold)
			break;
	}
	cudaGraphExecDestroy(graphExec);
	cudaGraphDestroy(graph);
	cudaFree(d_sum);
	return sum;
}

// streams[1] forked from streams[0] and joined back to it
static void fan_out_and_in(double *x, double *x_new)
{
	cudaEventRecord(fork_ev, streams[0]);
	cudaStreamWaitEvent(streams[1], fork_ev, 0);
	finalError<<<1, 1, 0, streams[1]>>>(x, x_new);
	cudaEventRecord(join_ev[1], streams[1]);
	cudaStreamWaitEvent(streams[0], join_ev[1], 0);
}

cudaError_t capture_fan(double *x, double *x_new, cudaGraph_t *graph, bool end_on_origin)
{
	cudaStreamBeginCapture(streams[0], cudaStreamCaptureModeGlobal);
	fan_out_and_in(x, x_new);
	if (end_on_origin)      // clean edit
		return cudaStreamEndCapture(streams[0], graph);
	cudaStreamBeginCapture(streams[2], cudaStreamCaptureModeGlobal);
	fan_out_and_in(x, x_new);
	return cudaStreamEndCapture(streams[1], graph);  // expect: error CG402
}

int main(void)
{
	for (int i = 0; i < N_STREAMS; i++)
		cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking);
	cudaGraph_t g;
	double *x = NULL;
	cudaMalloc(&x, 512 * sizeof(double));
	cudaStreamBeginCapture(streams[2], cudaStreamCaptureModeGlobal);
	finalError<<<1, 1, 0, streams[2]>>>(x, x);
	if (cudaStreamEndCapture(streams[2], &g) == cudaSuccess)
		cudaGraphDestroy(g);
	printf("done\n");
	exit(0);
}
