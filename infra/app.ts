import { buildApp } from './build-app.ts';

buildApp().app.synth();
