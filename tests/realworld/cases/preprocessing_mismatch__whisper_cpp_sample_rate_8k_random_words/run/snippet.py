#define COMMON_SAMPLE_RATE 16000

tried changing to 
#define COMMON_SAMPLE_RATE 8000
