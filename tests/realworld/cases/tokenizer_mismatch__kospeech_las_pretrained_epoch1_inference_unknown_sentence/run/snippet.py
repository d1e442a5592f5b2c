def parse_audio(audio_path: str, del_silence: bool = False, audio_extension: str = 'pcm') -> Tensor:
signal = load_audio(audio_path, del_silence, extension=audio_extension)
print(signal)
feature_vector = torchaudio.compliance.kaldi.fbank(
waveform=Tensor(signal).unsqueeze(0),
num_mel_bins=80,
frame_length=20,
frame_shift=10,
window_type='hamming'

).transpose(0, 1).numpy()

feature_vector -= feature_vector.mean()
feature_vector /= np.std(feature_vector)
feature_vector = feature_vector[:, ::-1]
feature_vector = torch.FloatTensor(np.ascontiguousarray(np.swapaxes(feature_vector, 0, 1)))

return feature_vector
