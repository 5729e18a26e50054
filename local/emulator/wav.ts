/** A real RIFF/WAVE file: 16-bit PCM, mono, with a soft tone so players show a waveform. */
export const SAMPLE_RATE = 16_000;

export function wav(seconds: number, frequency = 220): Buffer {
  const samples = Math.round(seconds * SAMPLE_RATE);
  const dataBytes = samples * 2;
  const out = Buffer.alloc(44 + dataBytes);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + dataBytes, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16); // fmt chunk size
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(1, 22); // mono
  out.writeUInt32LE(SAMPLE_RATE, 24);
  out.writeUInt32LE(SAMPLE_RATE * 2, 28); // byte rate
  out.writeUInt16LE(2, 32); // block align
  out.writeUInt16LE(16, 34); // bits per sample
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < samples; i++) {
    const v = Math.round(Math.sin((2 * Math.PI * frequency * i) / SAMPLE_RATE) * 3000);
    out.writeInt16LE(v, 44 + i * 2);
  }
  return out;
}

/** Speaking time for a script: about 150 words a minute, never under half a second. */
export function speakingSeconds(script: string): number {
  const words = script.trim().split(/\s+/).filter(Boolean).length;
  return Math.max(0.5, Math.round((words / 2.5) * 1000) / 1000);
}
