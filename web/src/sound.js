// Game sounds, made with the Web Audio API (no sound files to serve): a wooden click for a
// move, a heavier one for a capture, a higher knock for check, a low-time tick, a two-note
// chime at the end, and a rising three-note call when a new game starts for the player (an
// arena's pairing). Muted with the top bar's switch, remembered in the browser.

let context = null;
let muted = false;

/** Mutes or unmutes every sound. */
export function setMuted(value) {
  muted = value;
}

function audio() {
  if (!context) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    context = new Context();
  }
  // Browsers start audio suspended until the page has been used; a click resumes it.
  if (context.state === 'suspended') context.resume().catch(() => {});
  return context;
}

/** A short burst of filtered noise: the knock of a piece on wood. */
function knock(ctx, at, { frequency, gain, length }) {
  const samples = Math.max(1, Math.floor(ctx.sampleRate * length));
  const buffer = ctx.createBuffer(1, samples, ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < samples; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / samples) ** 3;
  const source = ctx.createBufferSource();
  source.buffer = buffer;
  const filter = ctx.createBiquadFilter();
  filter.type = 'bandpass';
  filter.frequency.value = frequency;
  filter.Q.value = 1.5;
  const level = ctx.createGain();
  level.gain.value = gain;
  source.connect(filter).connect(level).connect(ctx.destination);
  source.start(at);
}

/** A soft sine note with a quick fade. */
function note(ctx, at, frequency, length, gain = 0.12) {
  const oscillator = ctx.createOscillator();
  oscillator.type = 'sine';
  oscillator.frequency.value = frequency;
  const level = ctx.createGain();
  level.gain.setValueAtTime(gain, at);
  level.gain.exponentialRampToValueAtTime(0.0001, at + length);
  oscillator.connect(level).connect(ctx.destination);
  oscillator.start(at);
  oscillator.stop(at + length);
}

/** The sounds, by name. */
export const SOUNDS = ['move', 'capture', 'check', 'low-time', 'end', 'start'];

/**
 * Plays a sound unless muted; returns whether it was played (for the page to show it).
 * Unknown names and browsers without Web Audio play nothing.
 */
export function play(name) {
  if (muted || !SOUNDS.includes(name)) return false;
  const ctx = audio();
  if (!ctx) return false;
  const now = ctx.currentTime + 0.01;
  if (name === 'move') knock(ctx, now, { frequency: 900, gain: 1.2, length: 0.07 });
  else if (name === 'capture') {
    knock(ctx, now, { frequency: 700, gain: 1.6, length: 0.09 });
    knock(ctx, now + 0.06, { frequency: 1100, gain: 0.8, length: 0.06 });
  } else if (name === 'check') {
    knock(ctx, now, { frequency: 900, gain: 1.2, length: 0.07 });
    note(ctx, now + 0.02, 880, 0.18);
  } else if (name === 'low-time') note(ctx, now, 1320, 0.08, 0.08);
  else if (name === 'end') {
    note(ctx, now, 660, 0.35);
    note(ctx, now + 0.18, 990, 0.5);
  } else if (name === 'start') {
    note(ctx, now, 523, 0.2);
    note(ctx, now + 0.12, 784, 0.2);
    note(ctx, now + 0.24, 1047, 0.4);
  }
  return true;
}
