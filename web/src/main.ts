import './lesson/define';
import { registerOffline } from './offline';

// Offline after one visit: the page's service worker (web/pwa.ts).
registerOffline(document.querySelector('qkv-lesson')!);
