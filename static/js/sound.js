// The table's sounds, synthesised with Web Audio (no sound files). The audio
// context starts on the first tap or key press (browsers' autoplay policy);
// the mute switch is remembered in localStorage. `log` lists what was played
// (the browser tests read it as window.vipSound.log).

const KEY = "vip.sound.muted";
const VOLUME = 0.45;

function stored() {
  try {
    return localStorage.getItem(KEY) === "1";
  } catch {
    return false; // storage disabled: sound on, not remembered
  }
}

// -- synthesis: an oscillator or a noise burst with a short envelope ----------

function envelope(ctx, out, t, dur, level) {
  const gain = ctx.createGain();
  gain.gain.setValueAtTime(0.0001, t);
  gain.gain.exponentialRampToValueAtTime(level, t + 0.006);
  gain.gain.exponentialRampToValueAtTime(0.0001, t + dur);
  gain.connect(out);
  return gain;
}

function tone(ctx, out, t, { wave = "sine", freq, to = freq, dur, level = 0.3 }) {
  const osc = ctx.createOscillator();
  osc.type = wave;
  osc.frequency.setValueAtTime(freq, t);
  if (to !== freq) osc.frequency.exponentialRampToValueAtTime(to, t + dur);
  osc.connect(envelope(ctx, out, t, dur, level));
  osc.start(t);
  osc.stop(t + dur + 0.02);
}

function noise(ctx, out, t, { dur, level = 0.4, filter = "bandpass", freq = 2000, q = 1 }) {
  const source = ctx.createBufferSource();
  source.buffer = noiseBuffer(ctx);
  const shape = ctx.createBiquadFilter();
  shape.type = filter;
  shape.frequency.value = freq;
  shape.Q.value = q;
  source.connect(shape);
  shape.connect(envelope(ctx, out, t, dur, level));
  source.start(t, Math.random() * 0.5);
  source.stop(t + dur + 0.02);
}

const buffers = new WeakMap();
function noiseBuffer(ctx) {
  if (!buffers.has(ctx)) {
    const buffer = ctx.createBuffer(1, ctx.sampleRate, ctx.sampleRate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < data.length; i++) data[i] = Math.random() * 2 - 1;
    buffers.set(ctx, buffer);
  }
  return buffers.get(ctx);
}

const card = (ctx, out, t) => {
  noise(ctx, out, t, { dur: 0.07, level: 0.5, freq: 2600, q: 1.2 });
  tone(ctx, out, t, { freq: 180, to: 90, dur: 0.06, level: 0.25 });
};

export const SOUNDS = {
  card,
  deal: (ctx, out, t) => {
    for (let i = 0; i < 5; i++) noise(ctx, out, t + i * 0.075, { dur: 0.05, level: 0.35, filter: "highpass", freq: 3000 });
  },
  turn: (ctx, out, t) => {
    tone(ctx, out, t, { freq: 660, dur: 0.14, level: 0.3 });
    tone(ctx, out, t + 0.13, { freq: 990, dur: 0.24, level: 0.3 });
  },
  chop: (ctx, out, t) => {
    noise(ctx, out, t, { dur: 0.22, level: 0.6, filter: "lowpass", freq: 900 });
    tone(ctx, out, t, { wave: "square", freq: 240, to: 110, dur: 0.2, level: 0.18 });
    tone(ctx, out, t + 0.1, { wave: "sawtooth", freq: 150, to: 70, dur: 0.3, level: 0.15 });
  },
  thoi: (ctx, out, t) => {
    tone(ctx, out, t, { wave: "sawtooth", freq: 330, to: 290, dur: 0.25, level: 0.12 });
    tone(ctx, out, t + 0.27, { wave: "sawtooth", freq: 290, to: 196, dur: 0.45, level: 0.12 });
  },
  allin: (ctx, out, t) => {
    tone(ctx, out, t, { wave: "triangle", freq: 220, to: 880, dur: 0.35, level: 0.25 });
    for (let i = 0; i < 4; i++) noise(ctx, out, t + 0.3 + i * 0.05, { dur: 0.04, level: 0.3, freq: 5200, q: 4 });
  },
  chip: (ctx, out, t) => {
    noise(ctx, out, t, { dur: 0.04, level: 0.3, freq: 5200, q: 4 });
    noise(ctx, out, t + 0.05, { dur: 0.04, level: 0.25, freq: 4600, q: 4 });
  },
  win: (ctx, out, t) => {
    [523.25, 659.25, 783.99, 1046.5].forEach((freq, i) => tone(ctx, out, t + i * 0.09, { wave: "triangle", freq, dur: i === 3 ? 0.6 : 0.22, level: 0.28 }));
  },
  lose: (ctx, out, t) => {
    tone(ctx, out, t, { wave: "triangle", freq: 392, dur: 0.22, level: 0.22 });
    tone(ctx, out, t + 0.2, { wave: "triangle", freq: 311.13, dur: 0.45, level: 0.22 });
  },
  tick: (ctx, out, t) => tone(ctx, out, t, { freq: 1250, dur: 0.035, level: 0.2 }),
};

// -- the player -----------------------------------------------------------

class Sound {
  constructor() {
    this.muted = stored();
    this.ctx = null;
    this.out = null;
    this.log = [];
    this.listeners = [];
  }

  /** The audio context, made on a user gesture (before one, nothing plays). */
  unlock() {
    if (!this.ctx) {
      const Context = globalThis.AudioContext || globalThis.webkitAudioContext;
      if (!Context) return;
      this.ctx = new Context();
      this.out = this.ctx.createGain();
      this.out.gain.value = VOLUME;
      this.out.connect(this.ctx.destination);
    }
    if (this.ctx.state === "suspended") this.ctx.resume().catch(() => {});
  }

  /** Play a sound `delay` seconds from now; false when muted or not unlocked. */
  play(name, delay = 0) {
    if (this.muted || !this.ctx || !SOUNDS[name]) return false;
    SOUNDS[name](this.ctx, this.out, this.ctx.currentTime + delay);
    this.log.push({ name, delay, state: this.ctx.state });
    if (this.log.length > 200) this.log.shift();
    return true;
  }

  setMuted(muted) {
    this.muted = !!muted;
    try {
      localStorage.setItem(KEY, this.muted ? "1" : "0");
    } catch {
      // storage disabled: the switch holds for this page only
    }
    for (const listener of this.listeners) listener(this.muted);
  }
}

export const sound = new Sound();
globalThis.vipSound = sound;

for (const type of ["pointerdown", "keydown", "touchend"]) {
  globalThis.addEventListener?.(type, () => sound.unlock(), { capture: true, passive: true });
}
