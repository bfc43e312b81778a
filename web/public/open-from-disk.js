// Opened from disk (file://), browsers refuse the lesson's module script or its WebAssembly: this classic
// script, which they do run from a file, shows index.html's note on how to serve the page instead.
if (location.protocol === 'file:') document.querySelector('.from-disk')?.removeAttribute('hidden');
