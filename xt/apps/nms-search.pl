# nms Simple Search (search.pl): a taint-mode (-Tw) site search over HTML
# files (File::Find, `use vars` globals from a BEGIN block, /o patterns
# built from the configuration), GET and POST.
my $REPO = 'davorg/nms-cgi';
{
    source  => "github:$REPO search/search.pl",
    missing => sub { mirror_missing($REPO) },
    layout  => sub {
        my ($l) = @_;
        put(
            "$l->{dir}/search.pl",
            edit(
                mirror_file($REPO, 'search/search.pl'),
                qr{\$basedir             = '[^']*';} => "\$basedir             = '$l->{final_data}';"
            ),
            0755
        );
        put(
            "$l->{data}/leeks.html",
            "<html><head><title>Leeks</title></head><body>Leeks and potatoes make soup.</body></html>\n"
        );
        put(
            "$l->{data}/bread.html",
            "<html><head><title>Bread</title></head><body>Flour, water, salt and time.</body></html>\n"
        );
        put(
            "$l->{data}/sub/soup.html",
            "<html><head><title>Soup of the day</title></head><body>Leek soup, bread.</body></html>\n"
        );
        put(
            "$l->{data}/manual/index.html",
            "<html><head><title>Manual</title></head><body>How to bake bread.</body></html>\n"
        );
    },
    session => [
        {
            user => 'alice', post => '/cgi-bin/nms-search/search.pl',
            form => [terms => 'leek', boolean => 'AND', case => 'Insensitive']
        },
        { user => 'bob',   get => '/cgi-bin/nms-search/search.pl?terms=Bread+soup&boolean=OR&case=Sensitive' },
        {
            user => 'alice', post => '/cgi-bin/nms-search/search.pl',
            form => [terms => 'water salt', boolean => 'AND', case => 'Insensitive']
        },
        { user => 'carol', get => '/cgi-bin/nms-search/search.pl?terms=bake&directory=1' },
        { user => 'bob',   post => '/cgi-bin/nms-search/search.pl', form => [terms => 'nothing', boolean => 'AND'] },
    ],
};
