// SPDX-License-Identifier: GPL-2.0
/*
 * Directory helpers that return a mapped entry, released with
 * folio_release_kmap() (fs/ext2/dir.c's *_find_entry() and *_dotdot()).
 */
static void *d_get_folio(struct inode *dir, unsigned long n,
			 struct folio **foliop)
{
	struct folio *folio = read_mapping_folio(dir->i_mapping, n, NULL);

	if (IS_ERR(folio))
		return ERR_CAST(folio);
	*foliop = folio;
	return kmap_local_folio(folio, 0);
}

struct d_dirent *d_find_entry(struct inode *dir, const char *name,
			      struct folio **foliop)
{
	unsigned long n;
	char *kaddr;
	struct d_dirent *de;

	for (n = 0; n < dir_pages(dir); n++) {
		kaddr = d_get_folio(dir, n, foliop);
		if (IS_ERR(kaddr))
			return ERR_CAST(kaddr);
		de = (struct d_dirent *)kaddr;
		if (match(de, name))
			return de;
		folio_release_kmap(*foliop, kaddr);
	}
	return ERR_PTR(-ENOENT);
}

struct d_dirent *d_dotdot(struct inode *dir, struct folio **foliop)
{
	struct d_dirent *de = d_get_folio(dir, 0, foliop);

	if (!IS_ERR(de))
		return de + 1;
	return NULL;
}

int d_rename_wrong(struct inode *old_dir, struct inode *new_dir,
		   const char *name)
{
	struct folio *old_folio, *dir_folio;
	struct d_dirent *old_de, *dir_de;

	old_de = d_find_entry(old_dir, name, &old_folio);
	if (IS_ERR(old_de))
		return PTR_ERR(old_de);
	dir_de = d_dotdot(new_dir, &dir_folio);
	if (!dir_de) {
		folio_release_kmap(old_folio, old_de);
		return -EIO;
	}
	set_link(old_de);
	folio_release_kmap(old_folio, old_de); /* EXPECT: order */
	set_link(dir_de);
	folio_release_kmap(dir_folio, dir_de);
	return 0;
}

/* near miss: the newer entry released first */
int d_rename_right(struct inode *old_dir, struct inode *new_dir,
		   const char *name)
{
	struct folio *old_folio, *dir_folio;
	struct d_dirent *old_de, *dir_de;

	old_de = d_find_entry(old_dir, name, &old_folio);
	if (IS_ERR(old_de))
		return PTR_ERR(old_de);
	dir_de = d_dotdot(new_dir, &dir_folio);
	if (!dir_de) {
		folio_release_kmap(old_folio, old_de);
		return -EIO;
	}
	set_link(old_de);
	set_link(dir_de);
	folio_release_kmap(dir_folio, dir_de);
	folio_release_kmap(old_folio, old_de);
	return 0;
}
