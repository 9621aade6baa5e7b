// The types of sound.js, which stays JavaScript so that its unit tests run in Node as it is.

/** A game sound's name. */
export type SoundName = 'move' | 'capture' | 'check' | 'low-time' | 'end' | 'start';

/** Mutes or unmutes every sound. */
export function setMuted(value: boolean): void;

/** The sounds, by name. */
export const SOUNDS: SoundName[];

/** Plays a sound unless muted; whether it was played. */
export function play(name: SoundName): boolean;
