// Shows index.html's note on serving the page when it was opened from a file (a classic script runs there).
if (location.protocol === 'file:') document.querySelector('.from-disk')?.removeAttribute('hidden');
